#!/usr/bin/env bash
# ci/shard-tests.sh KERNELGATE LABEL I/N: the CTest arguments, one a line,
# that select shard I of N of the tests labelled LABEL: the workload tests
# <workload>.LABEL of the workloads `KERNELGATE list --shard I/N` names (as
# `kernelgate run --all --shard I/N` takes them), plus in shard 1 every test
# of no workload, and in every shard the schema check of the reports,
# reports.schema.LABEL, which checks the reports the shard wrote (-FA: the
# fixture that makes it wait for every workload test adds none of another
# shard's). Prints nothing for 1/1. Run from the checkout.
set -euo pipefail
kernelgate=${1:?usage: ci/shard-tests.sh KERNELGATE LABEL I/N}
label=${2:?usage: ci/shard-tests.sh KERNELGATE LABEL I/N}
shard=${3:?usage: ci/shard-tests.sh KERNELGATE LABEL I/N}
[ "$shard" = 1/1 ] && exit 0
printf '%s\n' -FA kernelgate_reports
list() { "$kernelgate" list --suites suites "$@" | awk '{print $1}' | sort; }
mine=$(list --shard "$shard")  # a malformed shard stops here, named
others=$(comm -23 <(list) <(printf '%s\n' "$mine") | paste -sd '|')
if [ "${shard%%/*}" = 1 ]; then
  if [ -n "$others" ]; then printf '%s\n' -E "^($others)\\.$label\$"; fi
elif [ -n "$mine" ]; then
  printf '%s\n' -R "^(($(paste -sd '|' <<<"$mine"))\\.$label|reports\\.schema(\\.$label)?)\$"
else
  printf '%s\n' -R "^reports\\.schema(\\.$label)?\$"
fi
