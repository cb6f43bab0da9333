#!/usr/bin/env bash
# Unit tests of the plain-C core (test/unit/test_*.c) under ASan + UBSan.
set -uo pipefail
bash test/unit/run.sh
