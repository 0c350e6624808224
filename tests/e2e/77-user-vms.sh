# The bundled VMs run as platform.user, a real unprivileged system user: a
# runner that reopens its result fd by name (/dev/fd/N, as the Lua and
# LuaJIT runners do) and a benchmark that writes to /dev/stderr or
# /dev/stdout by name must work there as they do as root (the pipes kiln
# made as root were the user's to write but not to reopen: EACCES).
source "$KILN_ROOT/tests/lib.sh"
sec_user kiln-e2e-uvms
useradd -r -M -s /usr/sbin/nologin "$U" || fail "useradd"
cat > byname.sh <<'S'
#!/bin/sh
echo "to stderr by name" > /dev/stderr || exit 7
echo "to stdout by name" > /dev/stdout || exit 8
{ printf '{"kiln":1,"clock":"monotonic","counters":[]}\n'; i=0
  while [ $i -lt "$KILN_ITERATIONS" ]; do printf '{"i":%d,"wall_ns":1000}\n' $i; i=$((i+1)); done
  printf '{"done":true}\n'; } > "/dev/fd/$KILN_RESULT_FD" || exit 9
S
chmod 755 byname.sh
cat > s.yaml <<Y
pexecs: 1
iterations: 2
vms:
  byname: {plugin: external, runner: [$T/byname.sh], language: evil, entry: x}
benchmarks: {b: 1}
platform: {user: $U, kmsg: off}
Y
"$KILN" run -q s.yaml 2>err.txt || fail "a shell benchmark writing by name as $U: $(cat err.txt) $(sqlite3 s.kiln.db "SELECT error FROM pexecs")"
assert_eq "$(sqlite3 s.kiln.db "SELECT status FROM pexecs")" ok "the shell benchmark's pexec"
vms=""
for vm in lua luajit; do
	p=$vm; [ $vm = lua ] && p=lua5.4
	command -v $p >/dev/null && vms="$vms  $vm: {plugin: $vm}
"
done
[ -n "$vms" ] || { echo "no Lua or LuaJIT here: their runners not tried"; exit 0; }
want=$(grep -c plugin <<<"$vms")
cp -r "$KILN_ROOT/benchmarks/nbody" benchmarks/
chmod -R a+rX benchmarks
cat > u.yaml <<Y
pexecs: 1
iterations: 2
vms:
$vms
benchmarks: {nbody: 100}
platform: {user: $U, kmsg: off}
Y
"$KILN" run -q u.yaml 2>err.txt; rc=$?
assert_eq "$rc" 0 "Lua runners as $U: $(cat err.txt) $(sqlite3 u.kiln.db "SELECT error FROM pexecs WHERE status != 'ok'")"
assert_eq "$(sqlite3 u.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" "$want" "pexecs ok as $U"
