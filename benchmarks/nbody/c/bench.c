/*
 * nbody (C) - the Jovian planets and the sun under Newtonian gravity.
 *
 * One iteration resets the five bodies to their initial state, offsets the
 * sun's momentum so the system's total is zero, advances `param` steps of
 * 0.01 days (symplectic Euler, every pair once per step) and computes the
 * total energy.  checksum() is floor(energy * 1e9 + 0.5).  The other four
 * languages do the same operations in the same order, so the doubles, and
 * the checksum, agree bit for bit.
 */
#include <math.h>

#define PI 3.141592653589793
#define SOLAR_MASS (4 * PI * PI)
#define DAYS 365.24
#define NB 5

struct body { double x, y, z, vx, vy, vz, mass; };

static const struct body initial[NB] = {
	{ 0, 0, 0, 0, 0, 0, SOLAR_MASS },
	{ 4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01,
	  1.66007664274403694e-03 * DAYS, 7.69901118419740425e-03 * DAYS,
	  -6.90460016972063023e-05 * DAYS, 9.54791938424326609e-04 * SOLAR_MASS },
	{ 8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01,
	  -2.76742510726862411e-03 * DAYS, 4.99852801234917238e-03 * DAYS,
	  2.30417297573763929e-05 * DAYS, 2.85885980666130812e-04 * SOLAR_MASS },
	{ 1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01,
	  2.96460137564761618e-03 * DAYS, 2.37847173959480950e-03 * DAYS,
	  -2.96589568540237556e-05 * DAYS, 4.36624404335156298e-05 * SOLAR_MASS },
	{ 1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01,
	  2.68067772490389322e-03 * DAYS, 1.62824170038242295e-03 * DAYS,
	  -9.51592254519715870e-05 * DAYS, 5.15138902046611451e-05 * SOLAR_MASS },
};

static double result;

static void advance(struct body *b, double dt)
{
	for (int i = 0; i < NB; i++) {
		for (int j = i + 1; j < NB; j++) {
			double dx = b[i].x - b[j].x, dy = b[i].y - b[j].y, dz = b[i].z - b[j].z;
			double d2 = dx * dx + dy * dy + dz * dz;
			double mag = dt / (d2 * sqrt(d2));
			double mi = b[i].mass * mag, mj = b[j].mass * mag;
			b[i].vx -= dx * mj;
			b[i].vy -= dy * mj;
			b[i].vz -= dz * mj;
			b[j].vx += dx * mi;
			b[j].vy += dy * mi;
			b[j].vz += dz * mi;
		}
	}
	for (int i = 0; i < NB; i++) {
		b[i].x += dt * b[i].vx;
		b[i].y += dt * b[i].vy;
		b[i].z += dt * b[i].vz;
	}
}

static double energy(const struct body *b)
{
	double e = 0;
	for (int i = 0; i < NB; i++) {
		e += 0.5 * b[i].mass * (b[i].vx * b[i].vx + b[i].vy * b[i].vy + b[i].vz * b[i].vz);
		for (int j = i + 1; j < NB; j++) {
			double dx = b[i].x - b[j].x, dy = b[i].y - b[j].y, dz = b[i].z - b[j].z;
			e -= b[i].mass * b[j].mass / sqrt(dx * dx + dy * dy + dz * dz);
		}
	}
	return e;
}

void run_iter(long param)
{
	struct body b[NB];
	for (int i = 0; i < NB; i++)
		b[i] = initial[i];
	double px = 0, py = 0, pz = 0;
	for (int i = 0; i < NB; i++) {
		px += b[i].vx * b[i].mass;
		py += b[i].vy * b[i].mass;
		pz += b[i].vz * b[i].mass;
	}
	b[0].vx = -px / SOLAR_MASS;
	b[0].vy = -py / SOLAR_MASS;
	b[0].vz = -pz / SOLAR_MASS;
	for (long s = 0; s < param; s++)
		advance(b, 0.01);
	result = energy(b);
}

long checksum(void)
{
	return (long)floor(result * 1e9 + 0.5);
}
