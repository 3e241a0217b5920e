/*
 * sysfilter.h - the sandbox's system-call filter: what a program that builds
 * or runs a submission may not ask of the kernel (mounts, namespaces, device
 * nodes, tracing, the keyring, BPF, counters, kernel modules, reboot ...).
 */
#ifndef SYSFILTER_H
#define SYSFILTER_H

#include "util.h"

/*
 * A new descriptor (close-on-exec) holding the filter as bubblewrap's
 * --seccomp reads it (BPF, at offset 0); -1 with an error when libseccomp
 * cannot make it. Thread-safe.
 */
int seccomp_filter_fd(void);

#endif
