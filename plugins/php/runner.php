<?php
/*
 * runner.php - kiln's iteration runner for PHP (the `php` plugin).
 *
 *     php [variant -d switches] [VM args] runner.php BENCH.php
 *
 * Loads BENCH.php (a class Bench with run_iter(int $param) and checksum()),
 * makes one Bench and times KILN_ITERATIONS calls of run_iter(KILN_PARAM);
 * or (Krun's layout, the warmup experiment's benchmarks) a function
 * run_iter($n), called as Krun's runner calls it, checksum() optional.
 * BENCH.php is included at the top level, as Krun includes it, so that its
 * top-level variables are globals (its functions reach them with `global`).
 * It times the calls
 * with hrtime(true) (CLOCK_MONOTONIC), writing the result stream (runner
 * protocol v1, docs/protocol.md) to the descriptor KILN_RESULT_FD with one
 * unbuffered fwrite per line, each iteration's after its clock stopped, with
 * its window (the two hrtime reads) and the process's CPU time
 * (getrusage(), microseconds, read just outside them).
 * After the last iteration the checksum goes to
 * KILN_INSTR_DIR/runner.kiln.jsonl, then {"done":true}.
 *
 * With KILN_INSTRUMENT=1 it reads, just outside the two clock reads,
 * gc_status() (collections, objects collected, the root buffer; the
 * collector's time from PHP 8.3 on), memory_get_usage(), and with opcache
 * on the JIT buffer's free space (opcache_get_status(false)), keeping
 * integers in preallocated arrays; php.kiln.jsonl is written at the end.
 */

function kiln_fail(string $msg): void
{
	fwrite(STDERR, "kiln php runner: $msg" . PHP_EOL);
	exit(1);
}

function kiln_int_env(string $name): int
{
	$v = getenv($name);
	if ($v === false)
		kiln_fail("$name is not set");
	if (!preg_match('/^-?[0-9]+$/', $v))
		kiln_fail("$name must be an integer, not '" . addcslashes($v, "\0..\37'\\") . "'");
	return (int)$v;
}

/* one generic record (docs/records.md); $i null for a per-pexec record */
function kiln_record($f, ?int $i, string $name, $value, ?string $unit = null): void
{
	$r = $i === null ? [] : ['i' => $i];
	$r['name'] = $name;
	$r['value'] = $value;
	if ($unit !== null)
		$r['unit'] = $unit;
	fwrite($f, json_encode($r, JSON_PRESERVE_ZERO_FRACTION) . "\n");
}

/* the process's user + system CPU time in microseconds (getrusage: all threads) */
function kiln_cpu_us(): int
{
	$r = getrusage();
	return ($r['ru_utime.tv_sec'] + $r['ru_stime.tv_sec']) * 1000000 + $r['ru_utime.tv_usec'] + $r['ru_stime.tv_usec'];
}

/* the JIT buffer's used bytes, null without opcache's JIT */
function kiln_jit_used(): ?int
{
	if (!function_exists('opcache_get_status'))
		return null;
	$s = opcache_get_status(false);
	if (!$s || empty($s['jit']['on']))
		return null;
	return $s['jit']['buffer_size'] - $s['jit']['buffer_free'];
}

final class KilnMeter
{
	private $n, $jit, $gc0, $jit0 = 0;
	private $runs, $collected, $roots, $gctime, $heap, $code, $added;

	public function __construct(int $n)
	{
		$this->n = $n;
		$this->jit = kiln_jit_used() !== null;
		$this->runs = array_fill(0, max($n, 1), 0);
		$this->collected = $this->runs;
		$this->roots = $this->runs;
		$this->heap = $this->runs;
		$this->code = $this->runs;
		$this->added = $this->runs;
		$this->gctime = array_key_exists('collector_time', gc_status()) ? array_fill(0, max($n, 1), 0.0) : null;
	}

	public function start(): void
	{
		if ($this->jit)
			$this->jit0 = kiln_jit_used();
		$this->gc0 = gc_status();
	}

	public function stop(int $i): void
	{
		$g = gc_status();
		$this->runs[$i] = $g['runs'] - $this->gc0['runs'];
		$this->collected[$i] = $g['collected'] - $this->gc0['collected'];
		$this->roots[$i] = $g['roots'];
		if ($this->gctime !== null)
			$this->gctime[$i] = $g['collector_time'] - $this->gc0['collector_time'];
		$this->heap[$i] = memory_get_usage();
		if ($this->jit) {
			$this->code[$i] = kiln_jit_used();
			$this->added[$i] = $this->code[$i] - $this->jit0;
		}
	}

	public function write($f): void
	{
		for ($i = 0; $i < $this->n; $i++) {
			kiln_record($f, $i, 'gc.count', $this->runs[$i]);
			if ($this->gctime !== null)
				kiln_record($f, $i, 'gc.time', $this->gctime[$i], 's');
			kiln_record($f, $i, 'php.gc.collected', $this->collected[$i]);
			kiln_record($f, $i, 'php.gc.roots', $this->roots[$i]);
			kiln_record($f, $i, 'heap', $this->heap[$i], 'bytes');
			if ($this->jit) {
				kiln_record($f, $i, 'jit.code_size', $this->code[$i], 'bytes');
				kiln_record($f, $i, 'jit.code_added', $this->added[$i], 'bytes');
			}
		}
	}
}

/*
 * The benchmark's run_iter and checksum (null: none) as closures: kiln's
 * layout, a class Bench with both; Krun's, the functions run_iter and,
 * optionally, checksum
 */
function kiln_entry_points(string $entry): array
{
	if (class_exists('Bench', false)) {
		$bench = new Bench();
		return [Closure::fromCallable([$bench, 'run_iter']), Closure::fromCallable([$bench, 'checksum'])];
	}
	if (!function_exists('run_iter')) {
		/* `<?` alone opens PHP code only with short_open_tag on (off by default since PHP 8): the rest is text */
		$head = (string)@file_get_contents($entry, false, null, 0, 16);
		if (preg_match('/^(\xEF\xBB\xBF)?<\?(?!php|=)/i', $head) && !ini_get('short_open_tag'))
			kiln_fail("$entry opens with PHP's short tag '<?', which this php reads as text (short_open_tag is off): "
				  . "write '<?php', or give the VM args: [-d, short_open_tag=On]");
		kiln_fail("$entry defines no class Bench (nor, as in Krun's layout, a function run_iter)");
	}
	return [Closure::fromCallable('run_iter'), function_exists('checksum') ? Closure::fromCallable('checksum') : null];
}

function kiln_main(string $entry): void
{
	$iters = kiln_int_env('KILN_ITERATIONS');
	$param = kiln_int_env('KILN_PARAM');
	$fd = kiln_int_env('KILN_RESULT_FD');
	$instr_dir = getenv('KILN_INSTR_DIR');
	[$run_iter, $checksum] = kiln_entry_points($entry);
	$meter = getenv('KILN_INSTRUMENT') === '1' ? new KilnMeter($iters) : null;
	$out = fopen("php://fd/$fd", 'w');
	if ($out === false)
		kiln_fail("cannot open descriptor $fd (KILN_RESULT_FD)");
	stream_set_write_buffer($out, 0);
	fwrite($out, '{"kiln":1,"clock":"monotonic","counters":[]}' . "\n");
	for ($i = 0; $i < $iters; $i++) {
		if ($meter !== null)
			$meter->start();
		$c0 = kiln_cpu_us();
		$t0 = hrtime(true);
		$run_iter($param);
		$t1 = hrtime(true);
		$c1 = kiln_cpu_us();
		if ($meter !== null)
			$meter->stop($i);
		fwrite($out, '{"i":' . $i . ',"wall_ns":' . ($t1 - $t0) . ',"start_ns":' . $t0 . ',"end_ns":' . $t1 .
			     ',"cpu_ns":' . (($c1 - $c0) * 1000) . "}\n");
	}
	if ($instr_dir !== false) {
		$f = fopen("$instr_dir/runner.kiln.jsonl", 'a');
		if ($checksum !== null) {
			/* as returned: (int) made 0.75 a 0 and 1e20 7766279631452241920 */
			$c = $checksum();
			if (is_string($c) && is_numeric($c))
				$c = $c + 0;
			if (!is_int($c) && !(is_float($c) && is_finite($c)))
				kiln_fail('checksum() returned ' . addcslashes(var_export($c, true), "\0..\37\\") . ', not a finite number');
			kiln_record($f, null, 'checksum', $c);
		}
		fclose($f);
		if ($meter !== null) {
			$f = fopen("$instr_dir/php.kiln.jsonl", 'a');
			$meter->write($f);
			fclose($f);
		}
	}
	fwrite($out, '{"done":true}' . "\n");
	fclose($out);
}

if (count($argv) != 2)
	kiln_fail('usage: runner.php BENCH.php');
define('KILN_ENTRY', $argv[1]);
require KILN_ENTRY;
kiln_main(KILN_ENTRY);
