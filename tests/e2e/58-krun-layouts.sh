# Benchmarks written for Krun (the warmup experiment's layout) run without
# edits on Python, PyPy, Java, PHP, Ruby and JRuby (issue 14 item 3), called
# as Krun's runners call them: run_iter(param) once per iteration with the
# benchmark's param, no checksum.  Python: a module with a top-level
# run_iter, which looks like kiln's own layout without its checksum(), so
# `layout: krun` says which it is (without it the probe refuses it, as test
# 56 checks for kiln's layout). Java: KrunEntry implementing Krun's
# BaseKrunEntry, beside another class of the benchmark's. PHP: a function
# run_iter reaching a top-level variable with `global`. Ruby: a top-level
# def run_iter reading the file's top-level @variables (main's).  Each
# benchmark checks its param and its state, so a wrong call fails the pexec.
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
B=benchmarks/kr
mkdir -p $B/python $B/java $B/php $B/ruby
cat > $B/python/bench.py <<'P'
# Krun's layout: a top-level run_iter(n), no checksum
EXPECT = 7
calls = [0]

def run_iter(n):
    if n != EXPECT:
        raise ValueError("param %r" % n)
    calls[0] += 1
    s = 0
    for i in range(n * 1000):
        s += i % 7
P
cat > $B/java/KrunEntry.java <<'J'
class KrunEntry implements BaseKrunEntry {
  static { work.init(); }

  public void run_iter(int param) {
      work.runIter(param);
  }
}
J
cat > $B/java/work.java <<'J'
class work {
  static long[] table;

  static void init() { table = new long[7]; }

  static void runIter(int n) {
      if (n != 7 || table == null)
          throw new IllegalStateException("param " + n);
      for (int i = 0; i < n * 1000; i++)
          table[i % 7] += i;
  }
}
J
# a tracing build's source, as the warmup experiment has: not compiled (it would not compile)
printf 'class trace_KrunEntry implements BaseKrunEntry { nonsense }\n' > $B/java/trace_KrunEntry.java
cat > $B/php/bench.php <<'H'
<?php
define("EXPECT", 7);
$state = array(0);

function run_iter($n) {
    global $state;
    if ($n !== EXPECT || !is_array($state))
        throw new RuntimeException("param $n or no global state");
    for ($i = 0; $i < $n * 1000; $i++)
        $state[0] += $i % 7;
}
?>
H
cat > $B/ruby/bench.rb <<'R'
# Krun's layout: top-level methods and @variables (the main object's)
@EXPECT = 7

def run_iter(n)
  raise "param #{n.inspect} or no @EXPECT" unless n == @EXPECT
  s = 0
  (n * 1000).times { |i| s += i % 7 }
end
R
vms=""
add() { vms="$vms
  $1: {plugin: $2}"; }
command -v python3 >/dev/null && add py python
command -v pypy3 >/dev/null && add pypy pypy
command -v java >/dev/null && command -v javac >/dev/null && add hotspot java
command -v php >/dev/null && add php php
command -v ruby >/dev/null && add cruby ruby
command -v jruby >/dev/null && add jruby jruby
[ -n "$vms" ] || skip "none of python3, pypy3, java, php, ruby, jruby is installed"
cat > k.yaml <<Y
pexecs: 1
iterations: 4
benchmarks_dir: $T/benchmarks
vms: $vms
benchmarks: {kr: {param: 7, layout: krun}}
platform: {kmsg: off}
Y
out=$("$KILN" run k.yaml 2>&1) || fail "Krun's layouts: $out"
nvm=$(grep -c 'plugin:' k.yaml)
assert_eq "$(sqlite3 k.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" "$nvm" \
	"every pexec ok: $(sqlite3 k.kiln.db "SELECT status, error, taint FROM pexecs WHERE status!='ok'")"
assert_eq "$(sqlite3 k.kiln.db "SELECT COUNT(*) FROM iterations WHERE n=4")" "$nvm" "four iterations in each"
assert_eq "$(sqlite3 k.kiln.db "SELECT COUNT(*) FROM scalars WHERE name='checksum'")" 0 "no checksum record"
# the classes were built as the warmup experiment's Makefile builds them (trace_* left out), in kiln's
# build cache, not beside the sources
if grep -q 'plugin: java' k.yaml; then
	state=${KILN_STATE_DIR:-$([ "$(id -u)" = 0 ] && echo /var/lib/kiln || echo /tmp/kiln-$(id -u))}
	cls=$(grep -l "$B/java" "$state"/build/java/*/KrunEntry.class 2>/dev/null | head -1)
	d=$(dirname "$(ls -t "$state"/build/java/*/work.class | head -1)")
	[ -e "$d/KrunEntry.class" ] && [ -e "$d/work.class" ] || fail "KrunEntry and work compiled"
	[ ! -e "$d/trace_KrunEntry.class" ] || fail "trace_KrunEntry.java compiled"
	[ -z "$(find $B/java -name '*.class')" ] || fail "classes written beside the sources"
fi

# a wrong param reaches run_iter as given: the benchmark's own check fails the pexec
# (the VMs that start quickly: the JVMs' checks are the same code)
sed -e 's/param: 7/param: 8/' -e 's/^pexecs: 1/pexecs: 1\nresults: bad.kiln.db/' -e '/plugin: j/d' k.yaml > bad.yaml
"$KILN" run -q bad.yaml >/dev/null 2>&1
assert_eq "$(sqlite3 bad.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 0 "param 8 refused by every benchmark"

# Python without layout: krun is kiln's layout, whose checksum() is missing
if command -v python3 >/dev/null; then
	cat > p.yaml <<Y
iterations: 2
benchmarks_dir: $T/benchmarks
vms: {py: {plugin: python}}
benchmarks: {kr: 7}
platform: {kmsg: off}
Y
	out=$("$KILN" run p.yaml 2>&1); assert_eq $? 1 "kiln's layout without checksum(): the key skipped"
	assert_contains "$out" "bench.py defines no checksum() (a benchmark written for Krun has none: give it layout: krun"
	# the experiment's layout: krun stands for every benchmark's
	printf 'layout: krun\n' >> p.yaml
	rm -f p.kiln.db
	"$KILN" run -q p.yaml || fail "layout: krun at the top level"
	assert_eq "$(sqlite3 p.kiln.db "SELECT COUNT(*) FROM iterations WHERE n=2")" 1 "two iterations"
	printf 'layout: Krun\n' > l.yaml && sed -n '1,5p' p.yaml >> l.yaml
	config_refused l.yaml "l.yaml:1:9: layout: expected kiln or krun, found 'Krun'"
fi
echo ok
