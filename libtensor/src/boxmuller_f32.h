/*
 * boxmuller_f32.h: the float32 Box-Muller blocks (boxmuller_f32.c), for
 * random.c. Internal to libtensor.
 */
#ifndef LIBTENSOR_BOXMULLER_F32_H
#define LIBTENSOR_BOXMULLER_F32_H

#include <stdint.h>

/* Turns blocks lo .. hi - 1 of data (16 float32 uniforms in [0, 1) each)
 * into normals of mean and std in place, as torch 2.13's x86-64 kernel
 * does. Picks an AVX2+FMA loop when the CPU has both (same bits). */
void lt__normal_blocks_f32(float *data, int64_t lo, int64_t hi, float mean, float std);

#endif
