# What a first try of someone else's suite trips on (issue 28), each said
# clearly: PHP's short open tag `<?`.
source "$KILN_ROOT/tests/lib.sh"
cd "$T"

# ---- PHP's short open tag: the file is text to a php with short_open_tag off ----
if command -v php >/dev/null && [ "$(php -r 'echo (int)ini_get("short_open_tag");')" = 0 ]; then
	mkdir -p k/nb/php
	printf '<?\nfunction run_iter($n) { $x = 0; for ($i = 0; $i < $n; $i++) $x += $i; }\n' > k/nb/php/bench.php
	printf 'benchmarks_dir: k\nlayout: krun\nvms: {php: {plugin: php}}\nbenchmarks: {nb: 1}\n' > p.yaml
	"$KILN" run -q p.yaml 2>/dev/null; assert_eq $? 1 "short tag"
	assert_contains "$(sqlite3 p.kiln.db 'SELECT stderr FROM pexecs')" "bench.php opens with PHP's short tag '<?', which this php reads as text (short_open_tag is off): write '<?php', or give the VM args: \[-d, short_open_tag=On\]"
	printf 'benchmarks_dir: k\nlayout: krun\nvms: {php: {plugin: php, args: [-d, short_open_tag=On]}}\nbenchmarks: {nb: 1}\n' > p2.yaml
	"$KILN" run -q p2.yaml || fail "short_open_tag=On"
fi
echo ok
