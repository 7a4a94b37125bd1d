/* Links against the object of `collc compile --target=sg2260 -c` (or its
 * --emit=c source): writes the bundle image to argv[1] and prints the
 * layout table. */
#include <stdio.h>

extern const unsigned char ring_allreduce_sg2260[];
extern const unsigned long ring_allreduce_sg2260_size;
extern const unsigned long long ring_allreduce_sg2260_layout[];

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    FILE *f = fopen(argv[1], "wb");
    if (!f || fwrite(ring_allreduce_sg2260, 1, ring_allreduce_sg2260_size, f) != ring_allreduce_sg2260_size)
        return 1;
    fclose(f);
    printf("aligned %d size %lu magic %.10s\n", (int)((unsigned long)ring_allreduce_sg2260 % 128),
           ring_allreduce_sg2260_size, (const char *)ring_allreduce_sg2260);
    const unsigned long long *l = ring_allreduce_sg2260_layout;
    printf("version %llu N %llu count %llu dtype %llu op %llu nbuffers %llu l2 %llu\n", l[0], l[1], l[2], l[3], l[4], l[6], l[9]);
    for (unsigned long long b = 0; b < l[6]; b++) printf("buffer %llu at 0x%llx, %llu bytes\n", b, l[10 + 2 * b], l[11 + 2 * b]);
    for (unsigned long long r = 0; r < l[1]; r++) printf("rank %llu on chip %llu\n", r, l[10 + 2 * l[6] + r]);
    return 0;
}
