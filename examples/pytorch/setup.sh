# SPDX-License-Identifier: GPL-2.0-or-later
# The environment train.py runs in, for tune submit --setup: its job script,
# and each trial job with --trial-jobs, run these lines first. Yours instead:
#   module load pytorch/2.1
#   conda activate torch
source ~/venvs/torch/bin/activate
