#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H

#include <sqlite3.h>

/* SQLITE_TRANSIENT is a cast macro that Swift cannot import: tells SQLite to copy a bound buffer at once. */
static inline sqlite3_destructor_type csqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/* Extended result codes are expression macros, which Swift does not import. */
static inline int csqlite_constraint_primarykey(void) {
    return SQLITE_CONSTRAINT_PRIMARYKEY;
}

#endif
