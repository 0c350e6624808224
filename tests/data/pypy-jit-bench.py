def f(n):
    s = 0.0
    for i in range(n):
        if i % 7 == 0:
            s += 1.5
        s += i * 0.5
    return s

def g(n):
    t = 0
    for i in range(n):
        t += f(20)
    return t

for k in range(20):
    g(3000)
