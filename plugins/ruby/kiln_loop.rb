# kiln_loop.rb - the runner protocol v1 (docs/protocol.md) for Ruby runners,
# shared by plugins/ruby/runner.rb (CRuby) and plugins/jruby/runner.rb (JRuby).
#
# KilnLoop.run(entry, meter_class, cpu) loads ENTRY (which defines a class
# Bench with run_iter(param) and checksum), makes one Bench (or, Krun's
# layout, the warmup experiment's benchmarks: ENTRY defines a top-level
# run_iter(param), called on the main object as Krun's runner calls it,
# checksum optional), and times
# KILN_ITERATIONS calls of run_iter(KILN_PARAM) with CLOCK_MONOTONIC_RAW
# (CLOCK_MONOTONIC where Ruby has no raw clock: JRuby).  The result stream
# goes to the file descriptor KILN_RESULT_FD, one syswrite per line, each
# iteration's line after its clock stopped, with its window (the two clock
# reads, start_ns and end_ns) and the process's CPU time during it
# (cpu_ns: cpu.start and cpu.stop just outside the clock reads; CpuClock
# below by default).  Nothing but the call and two clock reads happens in
# the timed region.
#
# With KILN_INSTRUMENT=1 the runner's meter (meter_class.new(iterations))
# gets start(i) just before and stop(i) just after each iteration's clock
# reads (and the CPU clock's), keeps what it reads in memory, and after the
# last iteration writes its records with write(io) to
# KILN_INSTR_DIR/<meter.file>.  The checksum
# goes to KILN_INSTR_DIR/runner.kiln.jsonl, then {"done":true}.
module KilnLoop
  if defined?(Process::CLOCK_MONOTONIC_RAW)
    CLOCK = Process::CLOCK_MONOTONIC_RAW
    CLOCK_NAME = "monotonic_raw".freeze
  else
    CLOCK = Process::CLOCK_MONOTONIC
    CLOCK_NAME = "monotonic".freeze
  end

  # the process's CPU time (all threads) with CLOCK_PROCESS_CPUTIME_ID
  class CpuClock
    def start
      @c0 = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID, :nanosecond)
    end

    def stop
      Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID, :nanosecond) - @c0
    end
  end

  def self.fail(msg)
    warn "kiln ruby runner: #{msg}"
    exit 1
  end

  def self.int_env(name)
    v = ENV[name]
    fail("#{name} is not set") if v.nil?
    Integer(v, 10)
  rescue ArgumentError
    fail("#{name} must be an integer, not #{v.inspect}")
  end

  # one generic record (docs/records.md): i nil for a per-pexec record
  def self.record(io, i, name, value, unit = nil)
    s = i.nil? ? +"{" : +"{\"i\":#{i},"
    s << "\"name\":\"#{name}\",\"value\":#{value}"
    s << ",\"unit\":\"#{unit}\"" if unit
    io.write(s << "}\n")
  end

  # a checksum as a JSON number, as returned: Integer() made 0.75 a 0; an
  # Integer past 64 bits (which kiln's JSON reader refuses) as a Float
  def self.checksum_number(v)
    v = Integer(v, 10) rescue Float(v) if v.is_a?(String)
    v = v.to_f if v.is_a?(Numeric) && !v.is_a?(Integer) && !v.is_a?(Float)
    v = v.to_f if v.is_a?(Integer) && (v >= 2**63 || v < -2**63)
    fail("checksum returned #{v.inspect}, not a finite number") unless v.is_a?(Integer) || (v.is_a?(Float) && v.finite?)
    v
  rescue ArgumentError, TypeError
    fail("checksum returned #{v.inspect}, not a number")
  end

  def self.load_bench(entry)
    load(entry)
    return krun_bench(entry) unless Object.const_defined?(:Bench)
    b = Object.const_get(:Bench).new
    %i[run_iter checksum].each { |m| fail("Bench in #{entry} has no method #{m}") unless b.respond_to?(m) }
    b
  end

  # Krun's layout: top-level methods (private methods of Object) run on the
  # main object, whose instance variables are the file's top-level @vars;
  # made public so that the loop calls them as it calls Bench's
  def self.krun_bench(entry)
    unless Object.private_method_defined?(:run_iter)
      fail("#{entry} defines no class Bench (nor, as in Krun's layout, a top-level run_iter)")
    end
    %i[run_iter checksum].each { |m| Object.send(:public, m) if Object.private_method_defined?(m) }
    TOPLEVEL_BINDING.receiver
  end

  def self.run(entry, meter_class, cpu = CpuClock.new)
    fail("usage: runner.rb BENCH.rb") if entry.nil?
    iters = int_env("KILN_ITERATIONS")
    param = int_env("KILN_PARAM")
    fd = int_env("KILN_RESULT_FD")
    instr_dir = ENV["KILN_INSTR_DIR"]
    bench = load_bench(entry)
    meter = ENV["KILN_INSTRUMENT"] == "1" ? meter_class.new(iters) : nil
    out = IO.new(fd, "w")
    out.sync = true
    out.syswrite("{\"kiln\":1,\"clock\":\"#{CLOCK_NAME}\",\"counters\":[]}\n")
    # a meter that reads the GC's counts says so with gc_inside_cpu?: its reads
    # go inside the CPU clock's, whose allocations (JRuby's thread arrays) set
    # off collections that are not the iteration's (84 in 20000 iterations of
    # an empty run_iter under JRuby were counted in them)
    inner = meter && meter.respond_to?(:gc_inside_cpu?) && meter.gc_inside_cpu?
    i = 0
    while i < iters
      meter.start(i) if meter && !inner
      cpu.start
      meter.start(i) if inner
      t0 = Process.clock_gettime(CLOCK, :nanosecond)
      bench.run_iter(param)
      t1 = Process.clock_gettime(CLOCK, :nanosecond)
      meter.stop(i) if inner
      c = cpu.stop
      meter.stop(i) if meter && !inner
      out.syswrite("{\"i\":#{i},\"wall_ns\":#{t1 - t0},\"start_ns\":#{t0},\"end_ns\":#{t1},\"cpu_ns\":#{c}}\n")
      i += 1
    end
    if instr_dir
      File.open(File.join(instr_dir, "runner.kiln.jsonl"), "a") do |f|
        record(f, nil, "checksum", checksum_number(bench.checksum)) if bench.respond_to?(:checksum)
      end
      File.open(File.join(instr_dir, meter.file), "a") { |f| meter.write(f) } if meter
    end
    out.syswrite("{\"done\":true}\n")
    out.close
  end
end
