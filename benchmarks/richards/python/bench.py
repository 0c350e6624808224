"""richards (Python) - Martin Richards' OS simulation; see ../README.md.

Six tasks pass packets through a priority scheduler until the idle task has
counted down from `param`.  checksum() is queue_count * 1000000 + hold_count
(param 1000: 2322 and 928).  Same structure as the C version: a task control
block with three state flags and a per-kind run function.
"""

I_IDLE, I_WORK, I_HANDLER_A, I_HANDLER_B, I_DEV_A, I_DEV_B = range(6)
K_DEV, K_WORK = 0, 1
DATA_SIZE = 4


class Packet:
    __slots__ = ("link", "id", "kind", "a1", "a2")

    def __init__(self, link, ident, kind):
        self.link = link
        self.id = ident
        self.kind = kind
        self.a1 = 0
        self.a2 = [0] * DATA_SIZE

    def add_to(self, queue):
        """Append self to queue, return the queue's head."""
        self.link = None
        if queue is None:
            return self
        last = queue
        while last.link is not None:
            last = last.link
        last.link = self
        return queue


class Task:
    __slots__ = ("link", "id", "pri", "queue", "pending", "waiting", "held")

    def __init__(self, sched, ident, pri, queue):
        self.link = sched.list
        self.id = ident
        self.pri = pri
        self.queue = queue
        self.pending = queue is not None
        self.waiting = True
        self.held = False
        sched.list = sched.cur = self
        sched.blocks[ident] = self

    def held_or_suspended(self):
        return self.held or (self.waiting and not self.pending)

    def run(self, sched):
        packet = None
        if self.waiting and self.pending:
            packet = self.queue
            self.queue = packet.link
            self.pending = self.queue is not None
            self.waiting = False
        return self.step(sched, packet)


class IdleTask(Task):
    __slots__ = ("seed", "count")

    def step(self, s, packet):
        self.count -= 1
        if self.count == 0:
            return s.hold_current()
        if self.seed & 1 == 0:
            self.seed >>= 1
            return s.release(I_DEV_A)
        self.seed = (self.seed >> 1) ^ 0xD008
        return s.release(I_DEV_B)


class WorkerTask(Task):
    __slots__ = ("dest", "counter")

    def step(self, s, packet):
        if packet is None:
            return s.suspend_current()
        self.dest = I_HANDLER_B if self.dest == I_HANDLER_A else I_HANDLER_A
        packet.id = self.dest
        packet.a1 = 0
        a2 = packet.a2
        for i in range(DATA_SIZE):
            self.counter += 1
            if self.counter > 26:
                self.counter = 1
            a2[i] = self.counter
        return s.queue_packet(packet)


class HandlerTask(Task):
    __slots__ = ("work", "dev")

    def step(self, s, packet):
        if packet is not None:
            if packet.kind == K_WORK:
                self.work = packet.add_to(self.work)
            else:
                self.dev = packet.add_to(self.dev)
        w = self.work
        if w is not None:
            n = w.a1
            if n < DATA_SIZE:
                d = self.dev
                if d is not None:
                    self.dev = d.link
                    d.a1 = w.a2[n]
                    w.a1 = n + 1
                    return s.queue_packet(d)
            else:
                self.work = w.link
                return s.queue_packet(w)
        return s.suspend_current()


class DeviceTask(Task):
    __slots__ = ("pkt",)

    def step(self, s, packet):
        if packet is None:
            v = self.pkt
            if v is None:
                return s.suspend_current()
            self.pkt = None
            return s.queue_packet(v)
        self.pkt = packet
        return s.hold_current()


class Scheduler:
    def __init__(self):
        self.list = None
        self.cur = None
        self.cur_id = 0
        self.blocks = [None] * 6
        self.queue_count = 0
        self.hold_count = 0

    def release(self, ident):
        t = self.blocks[ident]
        t.held = False
        return t if t.pri > self.cur.pri else self.cur

    def hold_current(self):
        self.hold_count += 1
        self.cur.held = True
        return self.cur.link

    def suspend_current(self):
        self.cur.waiting = True
        return self.cur

    def queue_packet(self, packet):
        """Send packet to the task it names; the sender's id goes in it."""
        t = self.blocks[packet.id]
        self.queue_count += 1
        packet.link = None
        packet.id = self.cur_id
        if t.queue is None:
            t.queue = packet
            t.pending = True
            if t.pri > self.cur.pri:
                return t
        else:
            t.queue = packet.add_to(t.queue)
        return self.cur

    def schedule(self):
        self.cur = self.list
        while self.cur is not None:
            t = self.cur
            if t.held_or_suspended():
                self.cur = t.link
            else:
                self.cur_id = t.id
                self.cur = t.run(self)


_result = 0


def run_iter(param):
    global _result
    s = Scheduler()
    t = IdleTask(s, I_IDLE, 0, None)
    t.seed = 1
    t.count = int(param)
    t.pending = t.waiting = t.held = False  # the idle task starts running

    q = Packet(Packet(None, I_WORK, K_WORK), I_WORK, K_WORK)
    t = WorkerTask(s, I_WORK, 1000, q)
    t.dest = I_HANDLER_A
    t.counter = 0

    q = Packet(Packet(Packet(None, I_DEV_A, K_DEV), I_DEV_A, K_DEV), I_DEV_A, K_DEV)
    t = HandlerTask(s, I_HANDLER_A, 2000, q)
    t.work = t.dev = None
    q = Packet(Packet(Packet(None, I_DEV_B, K_DEV), I_DEV_B, K_DEV), I_DEV_B, K_DEV)
    t = HandlerTask(s, I_HANDLER_B, 3000, q)
    t.work = t.dev = None

    for ident, pri in ((I_DEV_A, 4000), (I_DEV_B, 5000)):
        t = DeviceTask(s, ident, pri, None)
        t.pkt = None

    s.schedule()
    _result = s.queue_count * 1000000 + s.hold_count


def checksum():
    return _result
