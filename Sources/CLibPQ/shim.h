#ifndef CLIBPQ_SHIM_H
#define CLIBPQ_SHIM_H

/* Debian's libpq-dev puts the header under postgresql/; pkg-config (libpq) adds that directory too. */
#include <postgresql/libpq-fe.h>

#endif
