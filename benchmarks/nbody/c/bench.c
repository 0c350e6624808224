/* placeholder while the suite is written */
volatile double kiln_sink;
void run_iter(long param)
{
	double x = 0;
	for (long i = 0; i < param * 1000; i++)
		x += (double)i * 0.5;
	kiln_sink = x;
}
