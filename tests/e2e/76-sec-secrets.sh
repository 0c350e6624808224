#!/bin/bash
# Issue 11.12: secrets.  The audit's probes of a VM (`VM --version`, ldd)
# run as the benchmark user with the benchmark's environment, never as root
# with kiln's; no credential reaches the results file or the shareable Krun
# export: kiln's environment is kept with its credentials hidden by name
# and by value (a URL's password, a token), and so is what a VM prints and
# what the config holds.
source "$KILN_ROOT/tests/lib.sh"
sec_user kiln-sec-secrets
uid=$(id -u "$U" 2>/dev/null || echo new)
PAT=ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5
mkdir -p bin
# a VM that says who runs it and what it was given, on --version
cat > bin/vm <<'S'
#!/bin/sh
if [ "${1:-}" = --version ]; then echo "vm 1.0 uid=$(id -u)"; env; fi
exit 0
S
chmod 755 bin/vm
cat > s.yaml <<Y
pexecs: 1
vms: {v: {plugin: command, path: $T/bin/vm, env: {API_URL: "https://svc:pw123secret@api.example/v1"}}}
benchmarks: {noop: 0}
platform: {user: $U}
Y
DATABASE_URL=postgres://bob:hunter2@db.example/x GH_PAT=$PAT "$KILN" run -q s.yaml 2>err.txt || fail "run: $(cat err.txt)"
uid=$(id -u "$U")
"$KILN" audit --json s.kiln.db > a.json || fail "audit"
python3 - a.json "$uid" <<'P' || fail "the audit: $(head -c 3000 a.json)"
import json, sys
a = json.load(open(sys.argv[1]))
uid = sys.argv[2]
for when in ("start", "end"):
    vm = a[when]["vms"][0]
    assert "uid=%s" % uid in vm["version"], ("not run as the benchmark user", vm["version"])
    assert vm["probed_as"] == int(uid), vm["probed_as"]
    # the benchmark's environment (the VM's env, HOME, USER), not kiln's
    assert "DATABASE_URL" not in vm["version"] and "GH_PAT" not in vm["version"], vm["version"]
    assert "API_URL=https://svc:(hidden)@api.example/v1" in vm["version"], vm["version"]
    assert "USER=" + "kiln-sec-secrets" in vm["version"], vm["version"]
env = a["start"]["environment"]
assert "DATABASE_URL=postgres://bob:(hidden)@db.example/x" in env, [e for e in env if "DATABASE" in e]
assert "GH_PAT=(hidden)" in env, [e for e in env if "PAT" in e]
P
"$KILN" export s.kiln.db --format krun -o s.json >/dev/null || fail "export"
sqlite3 s.kiln.db .dump > dump.sql
for f in s.json dump.sql a.json; do
	for secret in hunter2 "$PAT" pw123secret; do
		grep -qF "$secret" $f && fail "$f holds a credential ($secret)"
	done
done
grep -qF 'postgres://bob:(hidden)@db.example/x' s.json || fail "the export lost the audit's environment"
grep -qF 'https://svc:(hidden)@api.example/v1' s.json || fail "the export lost the config"
# an older file whose audit and config hold credentials: the export hides them
sqlite3 s.kiln.db "UPDATE audit SET value = replace(value, 'bob:(hidden)', 'bob:hunter2') WHERE name='start';
	UPDATE meta SET value = replace(value, 'svc:(hidden)', 'svc:pw123secret') WHERE name='config_text'"
sqlite3 s.kiln.db .dump | grep -qF hunter2 || fail "the test did not plant the credential"
"$KILN" export s.kiln.db --format krun -o old.json >/dev/null || fail "export of the older file"
grep -qF -e hunter2 -e pw123secret old.json && fail "the export of an older file holds a credential"
# an imported Krun file's own audit and fields, which kiln keeps for the way
# back: exported with their credentials hidden too
cat > k.json <<J
{"wallclock_times": {"b:vm:default-c": [[0.1, 0.1]]}, "pexec_flags": {"b:vm:default-c": ["C"]},
 "audit": {"uname": "Linux h 6.1.0 x86_64", "env": ["DATABASE_URL=postgres://bob:hunter2@db.example/x"],
           "api_token": "plainword", "notes": "key $PAT here",
           "krun_version": "a0c8e5bfb91d192695df63a500be96b7e6764491"},
 "config": "x = 1", "operator": {"password": "pw123secret"}}
J
"$KILN" import k.json -o k.kiln.db >/dev/null || fail "import of a Krun file"
"$KILN" export k.kiln.db --format krun -o kx.json >/dev/null || fail "export of an imported Krun file"
python3 - kx.json <<'P' || fail "the export of an imported Krun file"
import bz2, json, sys
raw = open(sys.argv[1], "rb").read()
d = json.loads(bz2.decompress(raw) if raw[:3] == b"BZh" else raw)
a = d["audit"]
assert a["uname"] == "Linux h 6.1.0 x86_64", a
assert a["env"] == ["DATABASE_URL=postgres://bob:(hidden)@db.example/x"], a["env"]
assert a["api_token"] == "(hidden)", a
assert "(hidden)" in a["notes"], a["notes"]
assert d["operator"]["password"] == "(hidden)", d.get("operator")
assert a["krun_version"] == "a0c8e5bfb91d192695df63a500be96b7e6764491", a  # a commit under its own name
P
for secret in hunter2 "$PAT" pw123secret plainword; do
	grep -qF "$secret" kx.json && fail "the export of an imported Krun file holds $secret"
done
echo ok
