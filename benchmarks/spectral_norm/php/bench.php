<?php
/*
 * spectral_norm (PHP) - power method on A(i,j) = 1/((i+j)(i+j+1)/2+i+1); see ../README.md.
 *
 * Sums are plain loops in the same order as the other languages; checksum()
 * is floor(result * 1e9 + 0.5).
 */
final class Bench
{
	private $result = 0.0;

	private static function mul_av(int $n, array $v, array &$out): void
	{
		for ($i = 0; $i < $n; $i++) {
			$s = 0.0;
			for ($j = 0; $j < $n; $j++)
				$s += 1.0 / (intdiv(($i + $j) * ($i + $j + 1), 2) + $i + 1) * $v[$j];
			$out[$i] = $s;
		}
	}

	private static function mul_atv(int $n, array $v, array &$out): void
	{
		for ($i = 0; $i < $n; $i++) {
			$s = 0.0;
			for ($j = 0; $j < $n; $j++)
				$s += 1.0 / (intdiv(($j + $i) * ($j + $i + 1), 2) + $j + 1) * $v[$j];
			$out[$i] = $s;
		}
	}

	private static function mul_atav(int $n, array $v, array &$out, array &$tmp): void
	{
		self::mul_av($n, $v, $tmp);
		self::mul_atv($n, $tmp, $out);
	}

	public function run_iter(int $param): void
	{
		$n = max(1, $param);
		$u = array_fill(0, $n, 1.0);
		$v = array_fill(0, $n, 0.0);
		$tmp = array_fill(0, $n, 0.0);
		for ($k = 0; $k < 10; $k++) {
			self::mul_atav($n, $u, $v, $tmp);
			self::mul_atav($n, $v, $u, $tmp);
		}
		$vbv = 0.0;
		$vv = 0.0;
		for ($i = 0; $i < $n; $i++) {
			$vbv += $u[$i] * $v[$i];
			$vv += $v[$i] * $v[$i];
		}
		$this->result = sqrt($vbv / $vv);
	}

	public function checksum(): int
	{
		return (int)floor($this->result * 1e9 + 0.5);
	}
}
