<?php
/*
 * fannkuch_redux (PHP) - pancake flips over all permutations; see ../README.md.
 *
 * Same permutation order as the C version (count-vector generator), so the
 * alternating-sign checksum agrees; checksum() is sum * 100 + max_flips.
 */
final class Bench
{
	private $result = 0;

	public function run_iter(int $param): void
	{
		$n = $param;
		$perm1 = range(0, $n - 1);
		$count = array_fill(0, $n, 0);
		$total = 0;
		$nperm = 0;
		$maxflips = 0;
		$r = $n;
		while (true) {
			while ($r != 1) {
				$count[$r - 1] = $r;
				$r--;
			}
			$perm = $perm1;
			$flips = 0;
			$k = $perm[0];
			while ($k != 0) {
				/* reverse $perm[0..k] */
				for ($lo = 0, $hi = $k; $lo < $hi; $lo++, $hi--) {
					$t = $perm[$lo];
					$perm[$lo] = $perm[$hi];
					$perm[$hi] = $t;
				}
				$flips++;
				$k = $perm[0];
			}
			if ($flips > $maxflips)
				$maxflips = $flips;
			$total += $nperm % 2 == 0 ? $flips : -$flips;
			/* next permutation */
			while (true) {
				if ($r == $n) {
					$this->result = $total * 100 + $maxflips;
					return;
				}
				$p0 = $perm1[0];
				for ($i = 0; $i < $r; $i++)
					$perm1[$i] = $perm1[$i + 1];
				$perm1[$r] = $p0;
				$count[$r]--;
				if ($count[$r] > 0)
					break;
				$r++;
			}
			$nperm++;
		}
	}

	public function checksum(): int
	{
		return $this->result;
	}
}
