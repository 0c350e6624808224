<?php
/*
 * nbody (PHP) - the Jovian planets and the sun; see ../README.md.
 *
 * run_iter($param) resets the bodies, offsets the sun's momentum, advances
 * $param steps of 0.01 and computes the energy; checksum() is
 * floor(energy * 1e9 + 0.5), identical to the other languages' because the
 * float operations happen in the same order.  A body is an object (PHP
 * arrays are values, and the pairs must share their bodies).
 */
final class NbodyBody
{
	public $x, $y, $z, $vx, $vy, $vz, $mass;

	public function __construct(array $a)
	{
		[$this->x, $this->y, $this->z, $this->vx, $this->vy, $this->vz, $this->mass] = $a;
	}
}

final class Bench
{
	const PI = 3.141592653589793;
	const SOLAR_MASS = 4 * self::PI * self::PI;
	const DAYS = 365.24;
	const INITIAL = [
		[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, self::SOLAR_MASS],
		[4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01,
		 1.66007664274403694e-03 * self::DAYS, 7.69901118419740425e-03 * self::DAYS,
		 -6.90460016972063023e-05 * self::DAYS, 9.54791938424326609e-04 * self::SOLAR_MASS],
		[8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01,
		 -2.76742510726862411e-03 * self::DAYS, 4.99852801234917238e-03 * self::DAYS,
		 2.30417297573763929e-05 * self::DAYS, 2.85885980666130812e-04 * self::SOLAR_MASS],
		[1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01,
		 2.96460137564761618e-03 * self::DAYS, 2.37847173959480950e-03 * self::DAYS,
		 -2.96589568540237556e-05 * self::DAYS, 4.36624404335156298e-05 * self::SOLAR_MASS],
		[1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01,
		 2.68067772490389322e-03 * self::DAYS, 1.62824170038242295e-03 * self::DAYS,
		 -9.51592254519715870e-05 * self::DAYS, 5.15138902046611451e-05 * self::SOLAR_MASS],
	];

	private $result = 0.0;

	private static function advance(array $bodies, array $pairs, float $dt): void
	{
		foreach ($pairs as [$bi, $bj]) {
			$dx = $bi->x - $bj->x;
			$dy = $bi->y - $bj->y;
			$dz = $bi->z - $bj->z;
			$d2 = $dx * $dx + $dy * $dy + $dz * $dz;
			$mag = $dt / ($d2 * sqrt($d2));
			$mi = $bi->mass * $mag;
			$mj = $bj->mass * $mag;
			$bi->vx -= $dx * $mj;
			$bi->vy -= $dy * $mj;
			$bi->vz -= $dz * $mj;
			$bj->vx += $dx * $mi;
			$bj->vy += $dy * $mi;
			$bj->vz += $dz * $mi;
		}
		foreach ($bodies as $b) {
			$b->x += $dt * $b->vx;
			$b->y += $dt * $b->vy;
			$b->z += $dt * $b->vz;
		}
	}

	private static function energy(array $bodies): float
	{
		$e = 0.0;
		$n = count($bodies);
		for ($i = 0; $i < $n; $i++) {
			$bi = $bodies[$i];
			$e += 0.5 * $bi->mass * ($bi->vx * $bi->vx + $bi->vy * $bi->vy + $bi->vz * $bi->vz);
			for ($j = $i + 1; $j < $n; $j++) {
				$bj = $bodies[$j];
				$dx = $bi->x - $bj->x;
				$dy = $bi->y - $bj->y;
				$dz = $bi->z - $bj->z;
				$e -= $bi->mass * $bj->mass / sqrt($dx * $dx + $dy * $dy + $dz * $dz);
			}
		}
		return $e;
	}

	public function run_iter(int $param): void
	{
		$bodies = [];
		foreach (self::INITIAL as $a)
			$bodies[] = new NbodyBody($a);
		$px = $py = $pz = 0.0;
		foreach ($bodies as $b) {
			$px += $b->vx * $b->mass;
			$py += $b->vy * $b->mass;
			$pz += $b->vz * $b->mass;
		}
		$sun = $bodies[0];
		$sun->vx = -$px / self::SOLAR_MASS;
		$sun->vy = -$py / self::SOLAR_MASS;
		$sun->vz = -$pz / self::SOLAR_MASS;
		$pairs = [];
		for ($i = 0; $i < 5; $i++)
			for ($j = $i + 1; $j < 5; $j++)
				$pairs[] = [$bodies[$i], $bodies[$j]];
		for ($k = 0; $k < $param; $k++)
			self::advance($bodies, $pairs, 0.01);
		$this->result = self::energy($bodies);
	}

	public function checksum(): int
	{
		return (int)floor($this->result * 1e9 + 0.5);
	}
}
