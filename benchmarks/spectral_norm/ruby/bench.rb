# spectral_norm (Ruby) - power method on A(i,j) = 1/((i+j)(i+j+1)/2+i+1); see ../README.md.
#
# Sums are plain loops in the same order as the other languages; checksum is
# floor(result * 1e9 + 0.5).
class Bench
  def initialize
    @result = 0.0
  end

  def mul_av(n, v, out)
    i = 0
    while i < n
      s = 0.0
      j = 0
      while j < n
        s += 1.0 / ((i + j) * (i + j + 1) / 2 + i + 1) * v[j]
        j += 1
      end
      out[i] = s
      i += 1
    end
  end

  def mul_atv(n, v, out)
    i = 0
    while i < n
      s = 0.0
      j = 0
      while j < n
        s += 1.0 / ((j + i) * (j + i + 1) / 2 + j + 1) * v[j]
        j += 1
      end
      out[i] = s
      i += 1
    end
  end

  def mul_atav(n, v, out, tmp)
    mul_av(n, v, tmp)
    mul_atv(n, tmp, out)
  end

  def run_iter(param)
    n = [1, param].max
    u = Array.new(n, 1.0)
    v = Array.new(n, 0.0)
    tmp = Array.new(n, 0.0)
    10.times do
      mul_atav(n, u, v, tmp)
      mul_atav(n, v, u, tmp)
    end
    vbv = 0.0
    vv = 0.0
    i = 0
    while i < n
      vbv += u[i] * v[i]
      vv += v[i] * v[i]
      i += 1
    end
    @result = Math.sqrt(vbv / vv)
  end

  def checksum
    (@result * 1e9 + 0.5).floor
  end
end
