/*
 * tools/nccl_alltoall.cu - `build/bin/nccl_alltoall`: NCCL's own rate for the exchange of
 * stage 08, so that every exchange figure can say what share of it it reaches.
 *
 * The same bytes as 08's exchange of uniform keys: n 4-byte keys spread evenly over G GPUs
 * of this host (one process, ncclCommInitAll), each GPU sending an even part of its keys to
 * every GPU - to the others by grouped ncclSend/ncclRecv on its own stream, to itself by a
 * device-to-device copy, as 08's exchange does.  A warm-up, then the median of --runs
 * exchanges, each timed on the host from all GPUs idle to all GPUs done.  Prints a table
 * and one RESULT line: the bytes that crossed between GPUs (moved_gb), the time, and the
 * rate a GPU sends at (gbs_per_gpu: moved bytes / G / time).
 *
 * --shift K moves every cut between two parts K keys off the even one (a part for an even
 * GPU K keys longer, for an odd one K shorter): the same bytes, but parts that start and
 * end where 08's do - anywhere, not on a 16-byte boundary, as a cut between keys of two
 * owners falls (K = 1, 2 or 3 keys: every part but the first off such a boundary).
 *
 * --pad starts every part, in the buffer it leaves and in the one it lands in, on a 16-byte
 * boundary (up to 3 keys of gap after each part): with --shift, the parts' lengths stay
 * uneven, but their addresses are aligned.
 *
 *   build/bin/nccl_alltoall -n 1073741824 --gpus 4 --runs 5
 *   build/bin/nccl_alltoall -n 1073741824 --gpus 4 --runs 5 --shift 1
 *   build/bin/nccl_alltoall -n 1073741824 --gpus 4 --runs 5 --shift 1 --pad
 *
 * Exit 2 with one line on bad options; 77 ("SKIP: ...") with fewer than 2 GPUs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nccl.h>

#include "cuda_check.h"
#include "gpu.h"
#include "options.h"
#include "timer.h"

#define MAX_GPUS 8
#define MAX_RUNS 1000
#define MAX_SHIFT 1024

#define NCCL_CHECK(call) nccl_check((call), #call, __FILE__, __LINE__)
static void nccl_check(ncclResult_t status, const char *call, const char *file, int line)
{
    if (status != ncclSuccess) {
        fprintf(stderr, "%s:%d: NCCL error %s in `%s`\n", file, line, ncclGetErrorString(status),
                call);
        exit(EXIT_CUDA_ERROR);
    }
}

typedef struct {
    size_t n;  /* keys in all */
    int gpus;  /* 0: every visible one */
    int runs;
    size_t shift; /* keys each cut moves off the even one */
    int pad;      /* every part starts on a 16-byte boundary */
} options;

static void usage(FILE *f)
{
    fprintf(f, "usage: nccl_alltoall [-n KEYS] [--gpus G] [--runs R] [--shift K] [--pad]\n"
               "  NCCL's rate for stage 08's exchange of KEYS uniform 4-byte keys over G GPUs\n"
               "  -n KEYS    keys in all, 2..2^34 (default 1073741824)\n"
               "  --gpus G   GPUs of this host, 2..%d (default: every visible one)\n"
               "  --runs R   timed exchanges after one warm-up, 1..%d; the median is shown "
               "(default 5)\n"
               "  --shift K  every cut between two parts K keys off the even one, 0..%d\n"
               "             (default 0): parts that start anywhere, as 08's do\n"
               "  --pad      every part starts on a 16-byte boundary in both buffers\n",
               MAX_GPUS, MAX_RUNS, MAX_SHIFT);
}

/* the value of option argv[*i] (--opt VALUE or --opt=VALUE), as a whole number in [lo, hi] */
/* The value of option `name` at argv[*i] (--name value or --name=value), a whole number
 * from lo to hi (options.h's parsers, as every program of the course reads them).  0, or
 * -1 after one line on stderr. */
static int number_arg(int argc, char **argv, int *i, const char *name, uint64_t lo, uint64_t hi,
                      uint64_t *value)
{
    const char *text = NULL;
    option_with_value(argc, argv, i, name, &text);
    if (!text) {
        fprintf(stderr, "nccl_alltoall: error: %s needs a value\n", name);
        return -1;
    }
    if (parse_number(text, lo, hi, value)) {
        fprintf(stderr, "nccl_alltoall: error: %s %s: a whole number from %llu to %llu\n", name, text,
                (unsigned long long)lo, (unsigned long long)hi);
        return -1;
    }
    return 0;
}

/* A part of the exchange holds about n / g^2 keys: a shift must leave every part some. */
static int check_shift(const options *o, int g)
{
    if (o->shift >= o->n / g / g) {
        fprintf(stderr, "nccl_alltoall: error: --shift %zu: a part of -n %zu over %d GPUs holds "
                "%zu keys; the shift must be smaller\n", o->shift, o->n, g, o->n / g / g);
        return -1;
    }
    return 0;
}

static int parse(int argc, char **argv, options *o)
{
    o->n = (size_t)1 << 30;
    o->gpus = 0;
    o->runs = 5;
    o->shift = 0;
    o->pad = 0;
    for (int i = 1; i < argc; i++) {
        uint64_t v;
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "-n") || !strncmp(a, "-n=", 3)) {
            if (number_arg(argc, argv, &i, "-n", 2, 1ull << 34, &v))
                return -1;
            o->n = (size_t)v;
        } else if (!strcmp(a, "--gpus") || !strncmp(a, "--gpus=", 7)) {
            if (number_arg(argc, argv, &i, "--gpus", 2, MAX_GPUS, &v))
                return -1;
            o->gpus = (int)v;
        } else if (!strcmp(a, "--runs") || !strncmp(a, "--runs=", 7)) {
            if (number_arg(argc, argv, &i, "--runs", 1, MAX_RUNS, &v))
                return -1;
            o->runs = (int)v;
        } else if (!strcmp(a, "--pad")) {
            o->pad = 1;
        } else if (!strcmp(a, "--shift") || !strncmp(a, "--shift=", 8)) {
            if (number_arg(argc, argv, &i, "--shift", 0, MAX_SHIFT, &v))
                return -1;
            o->shift = (size_t)v;
        } else {
            fprintf(stderr, "nccl_alltoall: error: %s: unknown option (--help lists them)\n", a);
            return -1;
        }
    }
    return o->gpus ? check_shift(o, o->gpus) : 0;
}

/* rank r's share of n over g: the remainder spread over the first ranks (as stage 08's) */
static size_t share(size_t n, int g, int r)
{
    return n / g + ((size_t)r < n % g ? 1 : 0);
}

/* the keys GPU r sends GPU h: an even part of its share, made `shift` keys longer for an
 * even h and shorter for an odd one (with an odd g the last part stays even), so that the
 * parts still add up to the share */
static size_t part(size_t mine, int g, int h, size_t shift)
{
    size_t even = share(mine, g, h);
    if (g % 2 && h == g - 1)
        return even;
    return h % 2 ? even - shift : even + shift;
}

typedef struct {
    int g;
    int pad; /* parts start on 16-byte boundaries: 4 keys */
    ncclComm_t comm[MAX_GPUS];
    cudaStream_t stream[MAX_GPUS];
    uint32_t *in[MAX_GPUS], *out[MAX_GPUS];
    size_t send[MAX_GPUS][MAX_GPUS]; /* keys GPU r sends GPU h */
} exchange;

static void sync_all(const exchange *x)
{
    for (int r = 0; r < x->g; r++) {
        CUDA_CHECK(cudaSetDevice(r));
        CUDA_CHECK(cudaStreamSynchronize(x->stream[r]));
    }
}

/* one exchange: every GPU's part for h to h, its own by a copy; returns host ms */
static double exchange_once(exchange *x)
{
    sync_all(x);
    double t0 = host_time_ms();
    NCCL_CHECK(ncclGroupStart());
    for (int r = 0; r < x->g; r++) {
        size_t send_at = 0, recv_at = 0;
        CUDA_CHECK(cudaSetDevice(r));
        for (int h = 0; h < x->g; h++) {
            size_t send = x->send[r][h], recv = x->send[h][r];
            if (h == r) {
                CUDA_CHECK(cudaMemcpyAsync(x->out[r] + recv_at, x->in[r] + send_at,
                                           send * sizeof(uint32_t), cudaMemcpyDeviceToDevice,
                                           x->stream[r]));
            } else {
                if (send)
                    NCCL_CHECK(ncclSend(x->in[r] + send_at, send, ncclUint32, h, x->comm[r],
                                        x->stream[r]));
                if (recv)
                    NCCL_CHECK(ncclRecv(x->out[r] + recv_at, recv, ncclUint32, h, x->comm[r],
                                        x->stream[r]));
            }
            send_at += x->pad ? (send + 3) / 4 * 4 : send;
            recv_at += x->pad ? (recv + 3) / 4 * 4 : recv;
        }
    }
    NCCL_CHECK(ncclGroupEnd());
    sync_all(x);
    return host_time_ms() - t0;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    options o;
    if (parse(argc, argv, &o))
        return 2;
    gpu_require("nccl_alltoall");
    int visible = 0;
    CUDA_CHECK(cudaGetDeviceCount(&visible));
    int g = o.gpus ? o.gpus : (visible < MAX_GPUS ? visible : MAX_GPUS);
    if (visible < 2 || g > visible) {
        printf("SKIP: nccl_alltoall needs %d GPUs, found %d\n", g < 2 ? 2 : g, visible);
        return 77;
    }
    exchange x;
    memset(&x, 0, sizeof x);
    x.g = g;
    x.pad = o.pad;
    /* GPU r holds share(n, g, r) keys and sends a part of them to each GPU */
    if (check_shift(&o, g)) /* with --gpus, checked before the GPU was looked for */
        return 2;
    size_t most = 0, moved = 0;
    for (int r = 0; r < g; r++) {
        size_t mine = share(o.n, g, r);
        for (int h = 0; h < g; h++) {
            x.send[r][h] = part(mine, g, h, o.shift);
            if (h != r)
                moved += x.send[r][h];
        }
        most = mine > most ? mine : most;
    }
    for (int r = 0; r < g; r++) {
        size_t got = 0;
        for (int h = 0; h < g; h++)
            got += x.send[h][r];
        most = got > most ? got : most;
    }
    if (o.pad) /* up to 3 keys of gap after each part */
        most += 3 * (size_t)g;
    int devs[MAX_GPUS];
    for (int r = 0; r < g; r++)
        devs[r] = r;
    setenv("NCCL_NVLS_ENABLE", "0", 0); /* NVLink multicast off, as 08_multi_gpu has it */
    NCCL_CHECK(ncclCommInitAll(x.comm, g, devs));
    for (int r = 0; r < g; r++) {
        char err[256];
        CUDA_CHECK(cudaSetDevice(r));
        if (gpu_require_memory(2 * most * sizeof(uint32_t), "the exchange's two buffers", err,
                               sizeof err)) {
            fprintf(stderr, "nccl_alltoall: error: GPU %d: %s\n", r, err);
            return 2;
        }
        CUDA_CHECK(cudaStreamCreateWithFlags(&x.stream[r], cudaStreamNonBlocking));
        x.in[r] = (uint32_t *)gpu_alloc(most * sizeof(uint32_t), 1);
        x.out[r] = (uint32_t *)gpu_alloc(most * sizeof(uint32_t), 1);
    }
    exchange_once(&x); /* warm-up: NCCL sets up its channels on first use */
    double ms[MAX_RUNS];
    for (int k = 0; k < o.runs; k++)
        ms[k] = exchange_once(&x);
    qsort(ms, (size_t)o.runs, sizeof ms[0], compare_double);
    double median = o.runs % 2 ? ms[o.runs / 2] : (ms[o.runs / 2 - 1] + ms[o.runs / 2]) / 2;
    double moved_gb = 4.0 * (double)moved / 1e9, gbs = moved_gb / g / (median / 1000.0);
    char name[128];
    gpu_name(name, sizeof name);
    printf("NCCL exchange of %zu keys over %d GPUs (%s), cuts shifted by %zu keys%s: %.3f GB "
           "between GPUs, median of %d %.3f ms (min %.3f), %.1f GB/s sent a GPU\n",
           o.n, g, name, o.shift, o.pad ? ", parts padded to 16 bytes" : "", moved_gb, o.runs,
           median, ms[0], gbs);
    printf("RESULT tool=nccl_alltoall n=%zu gpus=%d shift=%zu pad=%d runs=%d moved_gb=%.4f "
           "exchange_ms=%.3f min_ms=%.3f gbs_per_gpu=%.1f nccl=%d gpu=\"%s\"\n",
           o.n, g, o.shift, o.pad, o.runs, moved_gb, median, ms[0], gbs, NCCL_VERSION_CODE, name);
    for (int r = 0; r < g; r++) {
        CUDA_CHECK(cudaSetDevice(r));
        gpu_free(x.out[r]);
        gpu_free(x.in[r]);
        CUDA_CHECK(cudaStreamDestroy(x.stream[r]));
        NCCL_CHECK(ncclCommDestroy(x.comm[r]));
    }
    return 0;
}
