// Host memory copy bandwidth on the GPU machine, as a yardstick for the Java host copies
// (HostCopyBenchmark primitives): 256 MiB in 1 MiB pieces, copied by glibc memcpy on 1 and
// 16 threads, into freshly touched memory. Not part of the product.
//
//   gcc -O2 -pthread -o /tmp/host_memcpy kernels/bench/host_memcpy.c && /tmp/host_memcpy
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PIECES 256
#define PIECE (1 << 20)

static char* src;
static char* dst;
static atomic_int next;

static void* worker(void* arg) {
	(void)arg;
	for (int i; (i = atomic_fetch_add(&next, 1)) < PIECES;)
		memcpy(dst + (size_t)i * PIECE, src + (size_t)i * PIECE, PIECE);
	return NULL;
}

static double now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp(const void* a, const void* b) {
	double x = *(const double*)a, y = *(const double*)b;
	return x < y ? -1 : x > y;
}

int main(void) {
	size_t bytes = (size_t)PIECES * PIECE;
	src = malloc(bytes);
	dst = malloc(bytes);
	memset(src, 7, bytes);
	memset(dst, 1, bytes);
	int counts[] = {1, 4, 8, 16};
	for (int c = 0; c < 4; ++c) {
		int threads = counts[c];
		double t[7];
		for (int r = 0; r < 7; ++r) {
			pthread_t th[16];
			atomic_store(&next, 0);
			double t0 = now();
			for (int i = 0; i < threads; ++i) pthread_create(&th[i], NULL, worker, NULL);
			for (int i = 0; i < threads; ++i) pthread_join(th[i], NULL);
			t[r] = now() - t0;
		}
		qsort(t, 7, sizeof t[0], cmp);
		printf("memcpy, %2d threads: %.2f ms, %.1f GB/s (median of 7)\n", threads, t[3], bytes / (t[3] * 1e6));
	}
	return 0;
}
