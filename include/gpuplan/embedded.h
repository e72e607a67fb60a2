/* Files embedded into the binary at build time (tools/embed.py): the SQL migrations of db/
 * the demo scenarios and the bundled catalog of pricing/. Static data; nothing to free. Each table
 * ends with a NULL name. */
#ifndef GPUPLAN_EMBEDDED_H
#define GPUPLAN_EMBEDDED_H

#include <stddef.h>

typedef struct gp_embedded {
    const char *name;          /* the file's base name */
    const unsigned char *data; /* NUL-terminated for convenience; len excludes the NUL */
    size_t len;
} gp_embedded;

extern const gp_embedded gp_migrations[];     /* db/NNN_*.sql in order */
extern const gp_embedded gp_demo_scenarios[]; /* the JSON files of scenarios/ */
extern const gp_embedded gp_bundle[];         /* pricing/: MANIFEST.csv first, then its files */

#endif
