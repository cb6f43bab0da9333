#!/usr/bin/env bash
# The source tree's layers: no include cycle, every include downward
# (tools/check-layers.sh).
set -euo pipefail
bash tools/check-layers.sh
