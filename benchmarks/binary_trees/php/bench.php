<?php
/*
 * binary_trees (PHP) - allocate and walk many perfect binary trees; see ../README.md.
 *
 * A node is an object with two children, a leaf has null ones; checksum()
 * is the sum of every check() (node count), as in the C version.
 */
final class TreeNode
{
	public $left, $right;

	public function __construct(?TreeNode $left, ?TreeNode $right)
	{
		$this->left = $left;
		$this->right = $right;
	}
}

final class Bench
{
	private $result = 0;

	private static function make(int $d): TreeNode
	{
		if ($d == 0)
			return new TreeNode(null, null);
		$d--;
		return new TreeNode(self::make($d), self::make($d));
	}

	private static function check(TreeNode $t): int
	{
		if ($t->left === null)
			return 1;
		return 1 + self::check($t->left) + self::check($t->right);
	}

	public function run_iter(int $param): void
	{
		$maxd = max(6, $param);
		$total = self::check(self::make($maxd + 1));
		$longlived = self::make($maxd);
		for ($d = 4; $d <= $maxd; $d += 2) {
			$n = 1 << ($maxd - $d + 4);
			for ($k = 0; $k < $n; $k++)
				$total += self::check(self::make($d));
		}
		$total += self::check($longlived);
		$this->result = $total;
	}

	public function checksum(): int
	{
		return $this->result;
	}
}
