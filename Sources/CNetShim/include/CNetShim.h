// System calls Glibc's Swift module does not expose (epoll, eventfd, accept4 which needs _GNU_SOURCE, timerfd),
// and errno, which Swift cannot read as a thread-local macro. The header includes only what Glibc's module
// lacks, so the two modules never define the same C types.
#ifndef CNETSHIM_H
#define CNETSHIM_H

#include <sys/epoll.h>
#include <sys/eventfd.h>

struct sockaddr;

/// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC.
int cnet_accept(int fd, struct sockaddr *address, unsigned int *length);
/// The calling thread's errno.
int cnet_errno(void);
/// Ignores SIGPIPE process-wide (writes to closed sockets then return EPIPE).
void cnet_ignore_sigpipe(void);
/// Routes SIGTERM and SIGINT to a pipe (once per process) and returns its read end: each signal writes one byte.
/// Works whichever thread the kernel delivers the signal to, unlike blocking-and-waiting schemes.
int cnet_termination_fd(void);
/// Routes SIGHUP to a pipe (once per process) and returns its read end: each signal writes one byte.
int cnet_hangup_fd(void);
/// The number of online processors.
int cnet_core_count(void);
/// A new CLOCK_MONOTONIC timerfd, non-blocking and close-on-exec; -1 (and errno) when none can be made.
int cnet_timerfd_create(void);
/// Arms the timerfd `fd` to expire once, at `deadline` nanoseconds of CLOCK_MONOTONIC (an absolute time; one
/// already past expires at once). Returns timerfd_settime's result.
int cnet_timerfd_arm(int fd, unsigned long long deadline);
/// Disarms the timerfd `fd`. Returns timerfd_settime's result.
int cnet_timerfd_disarm(int fd);

#endif
