#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "CNetShim.h"

int cnet_accept(int fd, struct sockaddr *address, unsigned int *length) {
    return accept4(fd, address, (socklen_t *)length, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

int cnet_errno(void) { return errno; }

void cnet_ignore_sigpipe(void) { signal(SIGPIPE, SIG_IGN); }

int cnet_core_count(void) { return (int)sysconf(_SC_NPROCESSORS_ONLN); }

int cnet_timerfd_create(void) { return timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC); }

int cnet_timerfd_arm(int fd, unsigned long long deadline) {
    struct itimerspec spec;
    memset(&spec, 0, sizeof spec);
    spec.it_value.tv_sec = (time_t)(deadline / 1000000000ULL);
    // Never zero nanoseconds: an all-zero time would disarm the timer instead of expiring it.
    long nanoseconds = (long)(deadline % 1000000000ULL);
    spec.it_value.tv_nsec = nanoseconds > 0 ? nanoseconds : 1;
    return timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, NULL);
}

int cnet_timerfd_disarm(int fd) {
    struct itimerspec spec;
    memset(&spec, 0, sizeof spec);
    return timerfd_settime(fd, 0, &spec, NULL);
}


static int termination_pipe[2] = {-1, -1};
static int hangup_pipe[2] = {-1, -1};

static void write_signal(int fd, int signal_number) {
    int saved = errno;
    char byte = (char)signal_number;
    ssize_t ignored = write(fd, &byte, 1);
    (void)ignored;
    errno = saved;
}

static void on_termination(int signal_number) { write_signal(termination_pipe[1], signal_number); }

static void on_hangup(int signal_number) { write_signal(hangup_pipe[1], signal_number); }

/// Routes `signals` to `fds` through `handler` (once) and returns the pipe's read end, -1 when it cannot be made.
static int route_signals(int fds[2], void (*handler)(int), const int *signals, int count) {
    if (fds[0] >= 0) return fds[0];
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) return -1;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (int i = 0; i < count; i++) sigaction(signals[i], &action, NULL);
    return fds[0];
}

int cnet_termination_fd(void) {
    static const int signals[] = {SIGTERM, SIGINT};
    return route_signals(termination_pipe, on_termination, signals, 2);
}

int cnet_hangup_fd(void) {
    static const int signals[] = {SIGHUP};
    return route_signals(hangup_pipe, on_hangup, signals, 1);
}
