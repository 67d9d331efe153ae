/* Slurm's private headers include "config.h". No 22.05 struct layout
 * depends on it (see ../shared/SLURM.md), so this one-line file stands in
 * for the config.h of Slurm's own configure run. */
#define NDEBUG 1
