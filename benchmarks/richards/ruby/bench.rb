# richards (Ruby) - Martin Richards' OS simulation; see ../README.md.
#
# Six tasks pass packets through a priority scheduler until the idle task
# has counted down from `param`.  checksum is queue_count * 1000000 +
# hold_count (param 1000: 2322 and 928).  Same structure as the C version: a
# task control block with three state flags and a per-kind step method.
class Bench
  I_IDLE = 0
  I_WORK = 1
  I_HANDLER_A = 2
  I_HANDLER_B = 3
  I_DEV_A = 4
  I_DEV_B = 5
  K_DEV = 0
  K_WORK = 1
  DATA_SIZE = 4

  class Packet
    attr_accessor :link, :id, :kind, :a1, :a2

    def initialize(link, ident, kind)
      @link = link
      @id = ident
      @kind = kind
      @a1 = 0
      @a2 = Array.new(DATA_SIZE, 0)
    end

    # append self to queue, return the queue's head
    def add_to(queue)
      @link = nil
      return self if queue.nil?
      last = queue
      last = last.link until last.link.nil?
      last.link = self
      queue
    end
  end

  class Task
    attr_accessor :link, :id, :pri, :queue, :pending, :waiting, :held

    def initialize(sched, ident, pri, queue)
      @link = sched.list
      @id = ident
      @pri = pri
      @queue = queue
      @pending = !queue.nil?
      @waiting = true
      @held = false
      sched.list = sched.cur = self
      sched.blocks[ident] = self
    end

    def held_or_suspended
      @held || (@waiting && !@pending)
    end

    def run(sched)
      packet = nil
      if @waiting && @pending
        packet = @queue
        @queue = packet.link
        @pending = !@queue.nil?
        @waiting = false
      end
      step(sched, packet)
    end
  end

  class IdleTask < Task
    attr_accessor :seed, :count

    def step(s, _packet)
      @count -= 1
      return s.hold_current if @count == 0
      if (@seed & 1) == 0
        @seed >>= 1
        return s.release(I_DEV_A)
      end
      @seed = (@seed >> 1) ^ 0xD008
      s.release(I_DEV_B)
    end
  end

  class WorkerTask < Task
    attr_accessor :dest, :counter

    def step(s, packet)
      return s.suspend_current if packet.nil?
      @dest = @dest == I_HANDLER_A ? I_HANDLER_B : I_HANDLER_A
      packet.id = @dest
      packet.a1 = 0
      a2 = packet.a2
      i = 0
      while i < DATA_SIZE
        @counter += 1
        @counter = 1 if @counter > 26
        a2[i] = @counter
        i += 1
      end
      s.queue_packet(packet)
    end
  end

  class HandlerTask < Task
    attr_accessor :work, :dev

    def step(s, packet)
      unless packet.nil?
        if packet.kind == K_WORK
          @work = packet.add_to(@work)
        else
          @dev = packet.add_to(@dev)
        end
      end
      w = @work
      unless w.nil?
        n = w.a1
        if n < DATA_SIZE
          d = @dev
          unless d.nil?
            @dev = d.link
            d.a1 = w.a2[n]
            w.a1 = n + 1
            return s.queue_packet(d)
          end
        else
          @work = w.link
          return s.queue_packet(w)
        end
      end
      s.suspend_current
    end
  end

  class DeviceTask < Task
    attr_accessor :pkt

    def step(s, packet)
      if packet.nil?
        v = @pkt
        return s.suspend_current if v.nil?
        @pkt = nil
        return s.queue_packet(v)
      end
      @pkt = packet
      s.hold_current
    end
  end

  class Scheduler
    attr_accessor :list, :cur, :cur_id, :blocks, :queue_count, :hold_count

    def initialize
      @list = nil
      @cur = nil
      @cur_id = 0
      @blocks = Array.new(6)
      @queue_count = 0
      @hold_count = 0
    end

    def release(ident)
      t = @blocks[ident]
      t.held = false
      t.pri > @cur.pri ? t : @cur
    end

    def hold_current
      @hold_count += 1
      @cur.held = true
      @cur.link
    end

    def suspend_current
      @cur.waiting = true
      @cur
    end

    # send packet to the task it names; the sender's id goes in it
    def queue_packet(packet)
      t = @blocks[packet.id]
      @queue_count += 1
      packet.link = nil
      packet.id = @cur_id
      if t.queue.nil?
        t.queue = packet
        t.pending = true
        return t if t.pri > @cur.pri
      else
        t.queue = packet.add_to(t.queue)
      end
      @cur
    end

    def schedule
      @cur = @list
      until @cur.nil?
        t = @cur
        if t.held_or_suspended
          @cur = t.link
        else
          @cur_id = t.id
          @cur = t.run(self)
        end
      end
    end
  end

  def initialize
    @result = 0
  end

  def run_iter(param)
    s = Scheduler.new
    t = IdleTask.new(s, I_IDLE, 0, nil)
    t.seed = 1
    t.count = param
    t.pending = t.waiting = t.held = false # the idle task starts running

    q = Packet.new(Packet.new(nil, I_WORK, K_WORK), I_WORK, K_WORK)
    t = WorkerTask.new(s, I_WORK, 1000, q)
    t.dest = I_HANDLER_A
    t.counter = 0

    q = Packet.new(Packet.new(Packet.new(nil, I_DEV_A, K_DEV), I_DEV_A, K_DEV), I_DEV_A, K_DEV)
    t = HandlerTask.new(s, I_HANDLER_A, 2000, q)
    t.work = t.dev = nil
    q = Packet.new(Packet.new(Packet.new(nil, I_DEV_B, K_DEV), I_DEV_B, K_DEV), I_DEV_B, K_DEV)
    t = HandlerTask.new(s, I_HANDLER_B, 3000, q)
    t.work = t.dev = nil

    [[I_DEV_A, 4000], [I_DEV_B, 5000]].each do |ident, pri|
      t = DeviceTask.new(s, ident, pri, nil)
      t.pkt = nil
    end

    s.schedule
    @result = s.queue_count * 1_000_000 + s.hold_count
  end

  def checksum
    @result
  end
end
