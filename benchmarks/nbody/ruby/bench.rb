# nbody (Ruby) - the Jovian planets and the sun; see ../README.md.
#
# run_iter(param) resets the bodies, offsets the sun's momentum, advances
# `param` steps of 0.01 and computes the energy; checksum is
# floor(energy * 1e9 + 0.5), identical to the other languages' because the
# float operations happen in the same order.
class Bench
  PI = 3.141592653589793
  SOLAR_MASS = 4 * PI * PI
  DAYS = 365.24

  INITIAL = [
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, SOLAR_MASS],
    [4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01,
     1.66007664274403694e-03 * DAYS, 7.69901118419740425e-03 * DAYS,
     -6.90460016972063023e-05 * DAYS, 9.54791938424326609e-04 * SOLAR_MASS],
    [8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01,
     -2.76742510726862411e-03 * DAYS, 4.99852801234917238e-03 * DAYS,
     2.30417297573763929e-05 * DAYS, 2.85885980666130812e-04 * SOLAR_MASS],
    [1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01,
     2.96460137564761618e-03 * DAYS, 2.37847173959480950e-03 * DAYS,
     -2.96589568540237556e-05 * DAYS, 4.36624404335156298e-05 * SOLAR_MASS],
    [1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01,
     2.68067772490389322e-03 * DAYS, 1.62824170038242295e-03 * DAYS,
     -9.51592254519715870e-05 * DAYS, 5.15138902046611451e-05 * SOLAR_MASS],
  ].freeze

  def initialize
    @result = 0.0
  end

  def advance(bodies, pairs, dt)
    pairs.each do |bi, bj|
      dx = bi[0] - bj[0]
      dy = bi[1] - bj[1]
      dz = bi[2] - bj[2]
      d2 = dx * dx + dy * dy + dz * dz
      mag = dt / (d2 * Math.sqrt(d2))
      mi = bi[6] * mag
      mj = bj[6] * mag
      bi[3] -= dx * mj
      bi[4] -= dy * mj
      bi[5] -= dz * mj
      bj[3] += dx * mi
      bj[4] += dy * mi
      bj[5] += dz * mi
    end
    bodies.each do |b|
      b[0] += dt * b[3]
      b[1] += dt * b[4]
      b[2] += dt * b[5]
    end
  end

  def energy(bodies)
    e = 0.0
    n = bodies.size
    i = 0
    while i < n
      bi = bodies[i]
      e += 0.5 * bi[6] * (bi[3] * bi[3] + bi[4] * bi[4] + bi[5] * bi[5])
      j = i + 1
      while j < n
        bj = bodies[j]
        dx = bi[0] - bj[0]
        dy = bi[1] - bj[1]
        dz = bi[2] - bj[2]
        e -= bi[6] * bj[6] / Math.sqrt(dx * dx + dy * dy + dz * dz)
        j += 1
      end
      i += 1
    end
    e
  end

  def run_iter(param)
    bodies = INITIAL.map(&:dup)
    px = py = pz = 0.0
    bodies.each do |b|
      px += b[3] * b[6]
      py += b[4] * b[6]
      pz += b[5] * b[6]
    end
    sun = bodies[0]
    sun[3] = -px / SOLAR_MASS
    sun[4] = -py / SOLAR_MASS
    sun[5] = -pz / SOLAR_MASS
    pairs = []
    (0...5).each { |i| (i + 1...5).each { |j| pairs << [bodies[i], bodies[j]] } }
    param.times { advance(bodies, pairs, 0.01) }
    @result = energy(bodies)
  end

  def checksum
    (@result * 1e9 + 0.5).floor
  end
end
