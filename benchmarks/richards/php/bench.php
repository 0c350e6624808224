<?php
/*
 * richards (PHP) - Martin Richards' OS simulation; see ../README.md.
 *
 * Six tasks pass packets through a priority scheduler until the idle task
 * has counted down from $param.  checksum() is queue_count * 1000000 +
 * hold_count (param 1000: 2322 and 928).  Same structure as the C version:
 * a task control block with three state flags and a per-kind step().
 */
const RI_IDLE = 0, RI_WORK = 1, RI_HANDLER_A = 2, RI_HANDLER_B = 3, RI_DEV_A = 4, RI_DEV_B = 5;
const RK_DEV = 0, RK_WORK = 1;
const R_DATA_SIZE = 4;

final class RPacket
{
	public $link, $id, $kind, $a1 = 0, $a2;

	public function __construct(?RPacket $link, int $id, int $kind)
	{
		$this->link = $link;
		$this->id = $id;
		$this->kind = $kind;
		$this->a2 = array_fill(0, R_DATA_SIZE, 0);
	}

	/* append $this to $queue, return the queue's head */
	public function add_to(?RPacket $queue): RPacket
	{
		$this->link = null;
		if ($queue === null)
			return $this;
		$last = $queue;
		while ($last->link !== null)
			$last = $last->link;
		$last->link = $this;
		return $queue;
	}
}

abstract class RTask
{
	public $link, $id, $pri, $queue, $pending, $waiting = true, $held = false;

	public function __construct(RScheduler $s, int $id, int $pri, ?RPacket $queue)
	{
		$this->link = $s->list;
		$this->id = $id;
		$this->pri = $pri;
		$this->queue = $queue;
		$this->pending = $queue !== null;
		$s->list = $s->cur = $this;
		$s->blocks[$id] = $this;
	}

	public function held_or_suspended(): bool
	{
		return $this->held || ($this->waiting && !$this->pending);
	}

	public function run(RScheduler $s): ?RTask
	{
		$packet = null;
		if ($this->waiting && $this->pending) {
			$packet = $this->queue;
			$this->queue = $packet->link;
			$this->pending = $this->queue !== null;
			$this->waiting = false;
		}
		return $this->step($s, $packet);
	}

	abstract public function step(RScheduler $s, ?RPacket $packet): ?RTask;
}

final class RIdleTask extends RTask
{
	public $seed, $count;

	public function step(RScheduler $s, ?RPacket $packet): ?RTask
	{
		$this->count--;
		if ($this->count == 0)
			return $s->hold_current();
		if (($this->seed & 1) == 0) {
			$this->seed >>= 1;
			return $s->release(RI_DEV_A);
		}
		$this->seed = ($this->seed >> 1) ^ 0xD008;
		return $s->release(RI_DEV_B);
	}
}

final class RWorkerTask extends RTask
{
	public $dest, $counter;

	public function step(RScheduler $s, ?RPacket $packet): ?RTask
	{
		if ($packet === null)
			return $s->suspend_current();
		$this->dest = $this->dest == RI_HANDLER_A ? RI_HANDLER_B : RI_HANDLER_A;
		$packet->id = $this->dest;
		$packet->a1 = 0;
		for ($i = 0; $i < R_DATA_SIZE; $i++) {
			$this->counter++;
			if ($this->counter > 26)
				$this->counter = 1;
			$packet->a2[$i] = $this->counter;
		}
		return $s->queue_packet($packet);
	}
}

final class RHandlerTask extends RTask
{
	public $work, $dev;

	public function step(RScheduler $s, ?RPacket $packet): ?RTask
	{
		if ($packet !== null) {
			if ($packet->kind == RK_WORK)
				$this->work = $packet->add_to($this->work);
			else
				$this->dev = $packet->add_to($this->dev);
		}
		$w = $this->work;
		if ($w !== null) {
			$n = $w->a1;
			if ($n < R_DATA_SIZE) {
				$d = $this->dev;
				if ($d !== null) {
					$this->dev = $d->link;
					$d->a1 = $w->a2[$n];
					$w->a1 = $n + 1;
					return $s->queue_packet($d);
				}
			} else {
				$this->work = $w->link;
				return $s->queue_packet($w);
			}
		}
		return $s->suspend_current();
	}
}

final class RDeviceTask extends RTask
{
	public $pkt;

	public function step(RScheduler $s, ?RPacket $packet): ?RTask
	{
		if ($packet === null) {
			$v = $this->pkt;
			if ($v === null)
				return $s->suspend_current();
			$this->pkt = null;
			return $s->queue_packet($v);
		}
		$this->pkt = $packet;
		return $s->hold_current();
	}
}

final class RScheduler
{
	public $list = null, $cur = null, $cur_id = 0, $blocks, $queue_count = 0, $hold_count = 0;

	public function __construct()
	{
		$this->blocks = array_fill(0, 6, null);
	}

	public function release(int $id): RTask
	{
		$t = $this->blocks[$id];
		$t->held = false;
		return $t->pri > $this->cur->pri ? $t : $this->cur;
	}

	public function hold_current(): ?RTask
	{
		$this->hold_count++;
		$this->cur->held = true;
		return $this->cur->link;
	}

	public function suspend_current(): RTask
	{
		$this->cur->waiting = true;
		return $this->cur;
	}

	/* send $packet to the task it names; the sender's id goes in it */
	public function queue_packet(RPacket $packet): RTask
	{
		$t = $this->blocks[$packet->id];
		$this->queue_count++;
		$packet->link = null;
		$packet->id = $this->cur_id;
		if ($t->queue === null) {
			$t->queue = $packet;
			$t->pending = true;
			if ($t->pri > $this->cur->pri)
				return $t;
		} else {
			$t->queue = $packet->add_to($t->queue);
		}
		return $this->cur;
	}

	public function schedule(): void
	{
		$this->cur = $this->list;
		while ($this->cur !== null) {
			$t = $this->cur;
			if ($t->held_or_suspended()) {
				$this->cur = $t->link;
			} else {
				$this->cur_id = $t->id;
				$this->cur = $t->run($this);
			}
		}
	}
}

final class Bench
{
	private $result = 0;

	public function run_iter(int $param): void
	{
		$s = new RScheduler();
		$t = new RIdleTask($s, RI_IDLE, 0, null);
		$t->seed = 1;
		$t->count = $param;
		$t->pending = $t->waiting = $t->held = false; /* the idle task starts running */

		$q = new RPacket(new RPacket(null, RI_WORK, RK_WORK), RI_WORK, RK_WORK);
		$t = new RWorkerTask($s, RI_WORK, 1000, $q);
		$t->dest = RI_HANDLER_A;
		$t->counter = 0;

		$q = new RPacket(new RPacket(new RPacket(null, RI_DEV_A, RK_DEV), RI_DEV_A, RK_DEV), RI_DEV_A, RK_DEV);
		$t = new RHandlerTask($s, RI_HANDLER_A, 2000, $q);
		$t->work = $t->dev = null;
		$q = new RPacket(new RPacket(new RPacket(null, RI_DEV_B, RK_DEV), RI_DEV_B, RK_DEV), RI_DEV_B, RK_DEV);
		$t = new RHandlerTask($s, RI_HANDLER_B, 3000, $q);
		$t->work = $t->dev = null;

		foreach ([[RI_DEV_A, 4000], [RI_DEV_B, 5000]] as [$id, $pri]) {
			$t = new RDeviceTask($s, $id, $pri, null);
			$t->pkt = null;
		}

		$s->schedule();
		$this->result = $s->queue_count * 1000000 + $s->hold_count;
	}

	public function checksum(): int
	{
		return $this->result;
	}
}
