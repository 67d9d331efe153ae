/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every rank says where it runs and which GPUs Slurm gave it, after an
 * MPI_Allreduce that crosses all nodes: the sum of 1..size proves that the
 * ranks really talked to each other. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank, size, sum = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int mine = rank + 1;
  MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  const char *node = getenv("SLURMD_NODENAME");
  const char *gpus = getenv("CUDA_VISIBLE_DEVICES");
  printf("rank %d of %d on %s sum %d gpus %s\n", rank, size, node ? node : "?", sum, gpus ? gpus : "none");
  MPI_Finalize();
  return 0;
}
