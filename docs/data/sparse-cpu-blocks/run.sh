#!/bin/bash
cd /tmp/kdev
for pass in 1 2; do
  for n in 64 96 128; do
    for layout in soa csoa; do
      OMP_NUM_THREADS=2 OMP_PROC_BIND=false ./apps/karman/karman bench --grid sparse --n $n --porosity 1,0.3 --sample random \
        --repeat 3 --steps 20 --layout $layout --pattern ab \
        --json /tmp/cpu-sweep2/n${n}_${layout}_ab_pass${pass}.json > /tmp/cpu-sweep2/n${n}_${layout}_ab_pass${pass}.txt 2>&1
    done
  done
done
for n in 64 128; do
  OMP_NUM_THREADS=2 OMP_PROC_BIND=false ./apps/karman/karman bench --grid sparse --n $n --porosity 1 --sample random \
    --repeat 3 --steps 20 --layout soa --pattern aa > /tmp/cpu-sweep2/n${n}_soa_aa.txt 2>&1
done
echo done > /tmp/cpu-sweep2/finished
