/*
 * switch_x86_64.S - the fiber switch of the CUDA emulator (System V x86-64).
 *
 *   void cudaemu_switch(void **save_sp, void *load_sp)
 *
 * Saves the callee-saved registers on the current stack, stores the stack
 * pointer in *save_sp, loads load_sp and restores the same from there. The
 * floating-point control state (MXCSR, x87 control word) is not switched:
 * every CUDA thread runs with the worker's, as CUDA code cannot change it.
 * A new fiber's stack is laid out by runtime.cc so that the first switch
 * "returns" into cudaemu_fiber_start with the entry function in r13 and its
 * argument in r12.
 */
	.text
	.globl	cudaemu_switch
	.type	cudaemu_switch, @function
cudaemu_switch:
	.cfi_startproc
	endbr64
	pushq	%rbp
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movq	%rsp, (%rdi)
	movq	%rsi, %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	ret
	.cfi_endproc
	.size	cudaemu_switch, .-cudaemu_switch

	.globl	cudaemu_fiber_start
	.type	cudaemu_fiber_start, @function
cudaemu_fiber_start:
	endbr64
	movq	%r12, %rdi
	callq	*%r13
	ud2			/* the entry function never returns */
	.size	cudaemu_fiber_start, .-cudaemu_fiber_start

	.section .note.GNU-stack,"",@progbits
