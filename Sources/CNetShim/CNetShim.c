#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "CNetShim.h"

int cnet_accept(int fd, struct sockaddr *address, unsigned int *length) {
    return accept4(fd, address, (socklen_t *)length, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

int cnet_errno(void) { return errno; }

unsigned long long cnet_monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

long long cnet_wall_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec;
}

void cnet_ignore_sigpipe(void) { signal(SIGPIPE, SIG_IGN); }

int cnet_core_count(void) { return (int)sysconf(_SC_NPROCESSORS_ONLN); }

void cnet_name_thread(const char *name) { pthread_setname_np(pthread_self(), name); }
