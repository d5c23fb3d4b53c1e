#!/bin/bash
# usage: run.sh BINARY TAG
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_PROC_BIND=false
for p in 0.1 0.5; do
  /usr/bin/time -f "%e s %M KB" $1 --n 1024 --porosity $p > $2-1-$p.json 2> $2-1-$p.err
  /usr/bin/time -f "%e s %M KB" mpirun --oversubscribe --bind-to none -np 4 -x OMP_NUM_THREADS=1 $1 --n 1024 --porosity $p > $2-4-$p.json 2> $2-4-$p.err
done
