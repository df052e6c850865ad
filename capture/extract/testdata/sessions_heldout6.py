# Held-out sessions, set 6 (read by gen.py: python3 gen.py heldout6).
# Written blind on 2026-11-28 by a helper that read only gen.py and
# sessions.py, never the extractor or the other held-out sets. Each function
# writes one transcript and says, with keep(), what a careful engineer would
# note afterwards; never() lists strings no memory may contain.
#
# Stacks covered: PyTorch training script (bf16, OmegaConf), dbt on
# Snowflake plus a pandas script, Zephyr on nRF52840 (west, devicetree,
# Kconfig), Java 21 with Maven and Quarkus/Panache, Angular 17 standalone
# components with Karma, SvelteKit 2 with Lucia and Playwright (a session
# resumed from the day before), a Go command-line tool with the std flag
# package, Bazel WORKSPACE to bzlmod with rules_go/gazelle, GitHub Actions
# building PlatformIO firmware, Docker Compose with Redis persistence,
# Elasticsearch reindex and alias swap on ECK, a Lua Neovim plugin tested
# with plenary.


@session
def torch_bf16_oom():
    s = Session("torch-seglite-bf16", "/home/yuki/research/seglite", branch="exp/bs32",
                start="2026-03-02T10:11:40Z", version="2.0.31")
    s.user("hey! so I'm trying to push the batch size to 32 for the seglite runs and train.py just dies with OOM on the 4090 after a couple of steps. three things if you can: (1) make bs32 fit somehow, (2) I need a seed option so runs are reproducible, (3) log the learning rate to tensorboard every step, right now I only see loss. oh and please keep every hyperparameter in the yaml files under configs/, not as argparse defaults - I lose track of what I actually ran otherwise.")
    s.bash("python -c \"import torch; print(torch.__version__, torch.cuda.get_device_name(0))\"",
           "2.3.1+cu121 NVIDIA GeForce RTX 4090")
    s.bash("python train.py --config configs/bs32.yaml", """epoch 0 step 0 | loss 2.9114
epoch 0 step 1 | loss 2.8720
Traceback (most recent call last):
  File "/home/yuki/research/seglite/train.py", line 47, in <module>
    main()
  File "/home/yuki/research/seglite/train.py", line 36, in main
    loss.backward()
  File "/home/yuki/miniconda3/envs/seg/lib/python3.11/site-packages/torch/_tensor.py", line 525, in backward
    torch.autograd.backward(
  File "/home/yuki/miniconda3/envs/seg/lib/python3.11/site-packages/torch/autograd/__init__.py", line 267, in backward
    _engine_run_backward(
  File "/home/yuki/miniconda3/envs/seg/lib/python3.11/site-packages/torch/autograd/graph.py", line 744, in _engine_run_backward
    return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 23.64 GiB of which 1.07 GiB is free. Including non-PyTorch memory, this process has 22.55 GiB memory in use. Of the allocated memory 21.93 GiB is allocated by PyTorch, and 174.21 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)""", 1)
    s.read("train.py", """import argparse

import torch
from torch.utils.tensorboard import SummaryWriter

from seglite.config import load_config
from seglite.data import build_loaders
from seglite.losses import DiceCELoss
from seglite.model import SegLite


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    args, overrides = parser.parse_known_args()
    cfg = load_config(args.config, overrides)

    train_loader, _ = build_loaders(cfg.data)
    model = SegLite(cfg.model).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.train.lr, weight_decay=cfg.train.weight_decay)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=cfg.train.lr, total_steps=cfg.train.total_steps)
    criterion = DiceCELoss()
    writer = SummaryWriter(cfg.log_dir)

    global_step = 0
    for epoch in range(cfg.train.epochs):
        for images, masks in train_loader:
            images = images.cuda(non_blocking=True)
            masks = masks.cuda(non_blocking=True)
            logits = model(images)
            loss = criterion(logits, masks)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            scheduler.step()
            writer.add_scalar("train/loss", loss.item(), global_step)
            print(f"epoch {epoch} step {global_step} | loss {loss.item():.4f}")
            global_step += 1
            if cfg.train.max_steps and global_step >= cfg.train.max_steps:
                print(f"reached train.max_steps={cfg.train.max_steps}, stopping")
                return
    print(f"peak memory: {torch.cuda.max_memory_allocated() / 2**30:.2f} GiB")""")
    s.think("Everything runs in fp32 at 512x512 with a batch of 32. Activations dominate. Options: autocast bf16, checkpointing, accumulation. Accumulation changes BN stats. Let the user pick.")
    s.say("Everything runs in fp32, so at 512\u00d7512 with 32 images the saved activations for backward are what blows past 24 GB. A few ways to get bs32 to fit:\n\n1. **bf16 autocast** around the forward and loss \u2014 roughly halves activation memory, the 4090 does bf16 natively, and unlike fp16 it needs no GradScaler.\n2. **Gradient checkpointing** on the encoder stages \u2014 large savings, but it recomputes the forward pass during backward.\n3. **Gradient accumulation** (2\u00d716) \u2014 same effective batch, but BatchNorm would only ever see 16 samples.\n\nI'd start with 1 and only add the others if it still doesn't fit.")
    s.user("bf16 sounds good, go")
    s.edit("train.py", "            logits = model(images)\n            loss = criterion(logits, masks)\n",
           "            with torch.autocast(device_type=\"cuda\", dtype=torch.bfloat16):\n                logits = model(images)\n                loss = criterion(logits, masks)\n")
    s.write("seglite/utils/seed.py", "import random\n\nimport numpy as np\nimport torch\n\n\ndef set_seed(seed: int) -> None:\n    random.seed(seed)\n    np.random.seed(seed)\n    torch.manual_seed(seed)\n    torch.cuda.manual_seed_all(seed)\n")
    s.edit("train.py", "    cfg = load_config(args.config, overrides)\n",
           "    cfg = load_config(args.config, overrides)\n    set_seed(cfg.train.seed)\n    print(f\"seed={cfg.train.seed} config={args.config}\")\n")
    s.edit("train.py", "            writer.add_scalar(\"train/loss\", loss.item(), global_step)\n",
           "            writer.add_scalar(\"train/loss\", loss.item(), global_step)\n            writer.add_scalar(\"train/lr\", scheduler.get_last_lr()[0], global_step)\n")
    s.edit("train.py", "from seglite.model import SegLite\n", "from seglite.model import SegLite\nfrom seglite.utils.seed import set_seed\n")
    s.bash("python train.py --config configs/bs32.yaml train.max_steps=20", """Traceback (most recent call last):
  File "/home/yuki/research/seglite/train.py", line 51, in <module>
    main()
  File "/home/yuki/research/seglite/train.py", line 18, in main
    set_seed(cfg.train.seed)
             ^^^^^^^^^^^^^^
omegaconf.errors.ConfigAttributeError: Missing key seed
    full_key: train.seed
    object_type=dict""", 1)
    s.read("configs/base.yaml", "log_dir: runs/${now:%Y%m%d-%H%M%S}\ndata:\n  root: /data/cityscapes\n  crop: 512\n  batch_size: 16\n  num_workers: 8\nmodel:\n  encoder: mit_b1\n  num_classes: 19\ntrain:\n  epochs: 60\n  lr: 6.0e-4\n  weight_decay: 0.01\n  total_steps: 40000\n  max_steps: null")
    s.say("load_config merges configs/base.yaml under bs32.yaml, and neither has `train.seed`. I'll put it in base.yaml so every config inherits it and a single run file can still override it.")
    s.edit("configs/base.yaml", "train:\n  epochs: 60\n", "train:\n  seed: 1337\n  epochs: 60\n")
    s.bash("python train.py --config configs/bs32.yaml train.max_steps=20", "seed=1337 config=configs/bs32.yaml\nepoch 0 step 0 | loss 2.9087\nepoch 0 step 1 | loss 2.8692\nepoch 0 step 2 | loss 2.8410\n...\nepoch 0 step 19 | loss 2.4418\nreached train.max_steps=20, stopping\npeak memory: 15.84 GiB")
    s.bash("python -c \"from tensorboard.backend.event_processing.event_accumulator import EventAccumulator as E; import glob; e = E(sorted(glob.glob('runs/*'))[-1]); e.Reload(); print(e.Tags()['scalars'])\"",
           "['train/loss', 'train/lr']")
    s.say("bs32 fits now: peak 15.8 GiB out of 24. The seed lives in configs/base.yaml (1337) and the learning rate is logged as `train/lr` next to the loss. torch.compile might buy a bit more speed on top of this, maybe 10\u201315%, but I haven't tried it on this model so treat that as a guess.")
    s.user("nice, plenty of headroom. quick sanity check: same seed twice, do we get the same loss at step 19?")
    s.bash("for i in 1 2; do python train.py --config configs/bs32.yaml train.max_steps=20 | grep 'step 19'; done",
           "epoch 0 step 19 | loss 2.4418\nepoch 0 step 19 | loss 2.4418")
    s.say("Identical at step 19 on both runs. Over long runs with cuDNN autotuning on, bf16 results aren't guaranteed to stay bit-identical, so expect tiny drift there unless cudnn.deterministic is turned on.")
    s.keep("fact", "2.3.1+cu121")
    s.keep("error", "CUDA out of memory", id="e1")
    s.keep("fix", "train.py", fixes="e1")
    s.keep("decision", "bf16")
    s.keep("error", "Missing key seed", id="e2")
    s.keep("fix", "base.yaml", fixes="e2")
    s.keep("preference", "hyperparameter in the yaml files")
    return s


@session
def dbt_incremental_orders():
    s = Session("dbt-fct-orders-incremental", "/home/marta/analytics/warehouse", branch="feat/fct-orders-incremental",
                start="2026-01-14T07:48:00Z", version="1.0.98")
    s.user("Hello, the model fct_orders is taking 40 minutes every night in the prod job, it rebuild the full table each time. Is possible to make it incremental? We are on Snowflake.")
    s.bash("dbt --version", """Core:
  - installed: 1.7.11
  - latest:    1.8.2 - Update available!

  Your version of dbt-core is out of date!
  You can find instructions for upgrading here:
  https://docs.getdbt.com/docs/installation

Plugins:
  - snowflake: 1.7.3 - Update available!

  At least one plugin is out of date or incompatible with dbt-core.
  You can find instructions for upgrading here:
  https://docs.getdbt.com/docs/installation
""")
    s.read("models/marts/fct_orders.sql", """{{ config(materialized='table') }}

with orders as (
    select * from {{ ref('stg_orders') }}
),

payments as (
    select order_id, sum(amount) as amount_paid
    from {{ ref('stg_payments') }}
    group by 1
)

select
    o.order_id,
    o.customer_id,
    o.order_status,
    o.ordered_at,
    o.order_updated_at,
    coalesce(p.amount_paid, 0) as amount_paid
from orders o
left join payments p using (order_id)""")
    s.say("Orders change status after they are placed, so a plain append-only incremental would miss updates. My plan: `materialized='incremental'` with `incremental_strategy='merge'` and `unique_key='order_id'`, and on incremental runs only pick up rows whose update timestamp falls within a lookback window, to catch late-arriving data \u2014 I'd suggest 3 days.")
    s.user("Merge on order_id is good. But 3 days lookback is too much, put 2 days, our loaders never deliver later than 36 hours.")
    s.edit("models/marts/fct_orders.sql", "{{ config(materialized='table') }}",
           "{{\n    config(\n        materialized='incremental',\n        incremental_strategy='merge',\n        unique_key='order_id'\n    )\n}}")
    s.edit("models/marts/fct_orders.sql", "left join payments p using (order_id)",
           "left join payments p using (order_id)\n\n{% if is_incremental() %}\nwhere o.updated_at >= (select dateadd(day, -2, max(updated_at)) from {{ this }})\n{% endif %}")
    s.bash("dbt run -s fct_orders", """07:52:10  Running with dbt=1.7.11
07:52:11  Registered adapter: snowflake=1.7.3
07:52:12  Found 48 models, 6 snapshots, 112 tests, 19 sources, 0 exposures, 0 metrics, 611 macros, 0 groups, 0 semantic models
07:52:12  
07:52:14  Concurrency: 8 threads (target='dev')
07:52:14  
07:52:14  1 of 1 START sql incremental model dbt_marta.fct_orders ........................ [RUN]
07:52:16  1 of 1 ERROR creating sql incremental model dbt_marta.fct_orders ............... [ERROR in 1.84s]
07:52:16  
07:52:16  Finished running 1 incremental model in 0 hours 0 minutes and 4.02 seconds (4.02s).
07:52:16  
07:52:16  Completed with 1 error and 0 warnings:
07:52:16  
07:52:16    Database Error in model fct_orders (models/marts/fct_orders.sql)
  000904 (42000): SQL compilation error: error line 36 at position 6
  invalid identifier 'O.UPDATED_AT'
  compiled Code at target/run/warehouse/models/marts/fct_orders.sql
07:52:16  
07:52:16  Done. PASS=0 WARN=0 ERROR=1 SKIP=0 TOTAL=1""", 1)
    s.say("My mistake: the column coming out of stg_orders is `order_updated_at`, there is no `updated_at`. Fixing both references in the filter.")
    s.edit("models/marts/fct_orders.sql", "where o.updated_at >= (select dateadd(day, -2, max(updated_at)) from {{ this }})",
           "where o.order_updated_at >= (select dateadd(day, -2, max(order_updated_at)) from {{ this }})")
    s.bash("dbt run -s fct_orders && dbt test -s fct_orders", """07:55:40  Running with dbt=1.7.11
07:55:41  Registered adapter: snowflake=1.7.3
07:55:42  Found 48 models, 6 snapshots, 112 tests, 19 sources, 0 exposures, 0 metrics, 611 macros, 0 groups, 0 semantic models
07:55:42  
07:55:44  Concurrency: 8 threads (target='dev')
07:55:44  
07:55:44  1 of 1 START sql incremental model dbt_marta.fct_orders ........................ [RUN]
07:55:50  1 of 1 OK created sql incremental model dbt_marta.fct_orders ................... [SUCCESS 18234 in 6.12s]
07:55:50  
07:55:50  Finished running 1 incremental model in 0 hours 0 minutes and 8.31 seconds (8.31s).
07:55:50  
07:55:50  Completed successfully
07:55:50  
07:55:50  Done. PASS=1 WARN=0 ERROR=0 SKIP=0 TOTAL=1
07:55:53  Running with dbt=1.7.11
07:55:55  Found 48 models, 6 snapshots, 112 tests, 19 sources, 0 exposures, 0 metrics, 611 macros, 0 groups, 0 semantic models
07:55:57  1 of 4 START test not_null_fct_orders_order_id ................................. [RUN]
07:55:57  2 of 4 START test unique_fct_orders_order_id ................................... [RUN]
07:55:57  3 of 4 START test not_null_fct_orders_customer_id .............................. [RUN]
07:55:57  4 of 4 START test accepted_values_fct_orders_order_status__placed__shipped__completed__returned  [RUN]
07:55:59  1 of 4 PASS not_null_fct_orders_order_id ....................................... [PASS in 1.21s]
07:55:59  3 of 4 PASS not_null_fct_orders_customer_id .................................... [PASS in 1.30s]
07:55:59  2 of 4 PASS unique_fct_orders_order_id ......................................... [PASS in 1.44s]
07:55:59  4 of 4 PASS accepted_values_fct_orders_order_status__placed__shipped__completed__returned  [PASS in 1.52s]
07:55:59  
07:55:59  Done. PASS=4 WARN=0 ERROR=0 SKIP=0 TOTAL=4""")
    s.say("The incremental run merged 18,234 changed orders in about 6 seconds and all four tests on fct_orders pass, including uniqueness of order_id.")
    s.user("Super. A question, if one day we need to rebuild everything from zero, it is still possible?")
    s.say("Yes: `dbt run --full-refresh -s fct_orders` drops and rebuilds the table, and `is_incremental()` is false during that run, so the lookback filter is skipped.")
    s.user("ok. Then my script scripts/compare_counts.py who compare snowflake against the source postgres, it is broken since I recreated my venv. Can you look? And for the future: the config of a model, we write it always in the .sql file on top, never in dbt_project.yml, so people see it when they open the model.")
    s.bash("python scripts/compare_counts.py --date 2026-01-13", """Traceback (most recent call last):
  File "/home/marta/analytics/warehouse/scripts/compare_counts.py", line 41, in <module>
    main()
  File "/home/marta/analytics/warehouse/scripts/compare_counts.py", line 33, in main
    by_status = df.groupby("order_status", squeeze=True)["order_id"].count()
                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
TypeError: DataFrame.groupby() got an unexpected keyword argument 'squeeze'""", 1)
    s.say("`squeeze` was deprecated in pandas 1.1 and removed in 2.0, and the new venv pulled a 2.x pandas. It had no effect here anyway, since selecting one column of the groupby already gives a Series.")
    s.edit("scripts/compare_counts.py", "    by_status = df.groupby(\"order_status\", squeeze=True)[\"order_id\"].count()",
           "    by_status = df.groupby(\"order_status\")[\"order_id\"].count()")
    s.bash("python scripts/compare_counts.py --date 2026-01-13", "order_status   snowflake   postgres   diff\ncompleted        1203311    1203311      0\nplaced             12876      12876      0\nreturned           41207      41207      0\nshipped           598703     598703      0\nall counts match for 2026-01-13")
    s.say("The script runs again and the counts match for 2026-01-13. The fct_orders config is already in the model file, so nothing to move there.")
    s.keep("fact", "1.7.11")
    s.keep("decision", "Merge on order_id")
    s.keep("decision", "2 days")
    s.keep("error", "invalid identifier 'O.UPDATED_AT'", id="e1")
    s.keep("fix", "fct_orders.sql", fixes="e1")
    s.keep("error", "unexpected keyword argument 'squeeze'", id="e2")
    s.keep("fix", "compare_counts.py", fixes="e2")
    s.keep("preference", "always in the .sql file")
    return s


@session
def zephyr_bme280_overlay():
    s = Session("zephyr-env-sensor-overlay", "/home/piotr/zephyrproject/apps/env-sensor",
                start="2025-11-05T18:22:00Z", version="2.0.14")
    s.user("west build fails for the nrf52840dk. overlay problem i think")
    s.bash("west build -b nrf52840dk/nrf52840 -p auto", """-- west build: making build dir /home/piotr/zephyrproject/apps/env-sensor/build pristine
-- west build: generating a build system
Loading Zephyr default modules (Zephyr base).
-- Application: /home/piotr/zephyrproject/apps/env-sensor
-- CMake version: 3.28.3
-- Found Python3: /home/piotr/zephyrproject/.venv/bin/python3 (found suitable version "3.12.3", minimum required is "3.8") found components: Interpreter 
-- Cache files will be written to: /home/piotr/.cache/zephyr
-- Zephyr version: 3.7.0 (/home/piotr/zephyrproject/zephyr)
-- Found west (found suitable version "1.2.0", minimum required is "0.14.0")
-- Board: nrf52840dk, qualifiers: nrf52840
-- Found host-tools: zephyr 0.16.8 (/home/piotr/zephyr-sdk-0.16.8)
-- Found toolchain: zephyr 0.16.8 (/home/piotr/zephyr-sdk-0.16.8)
-- Found Dtc: /home/piotr/zephyr-sdk-0.16.8/sysroots/x86_64-pokysdk-linux/usr/bin/dtc (found suitable version "1.6.0", minimum required is "1.4.6") 
-- Found BOARD.dts: /home/piotr/zephyrproject/zephyr/boards/nordic/nrf52840dk/nrf52840dk_nrf52840.dts
-- Found devicetree overlay: /home/piotr/zephyrproject/apps/env-sensor/boards/nrf52840dk_nrf52840.overlay
devicetree error: /home/piotr/zephyrproject/apps/env-sensor/boards/nrf52840dk_nrf52840.overlay:7 (column 1): parse error: undefined node label 'i2c2'
CMake Error at /home/piotr/zephyrproject/zephyr/cmake/modules/dts.cmake:295 (message):
  gen_defines.py failed with return code: 1
Call Stack (most recent call first):
  /home/piotr/zephyrproject/zephyr/cmake/modules/zephyr_default.cmake:133 (include)
  /home/piotr/zephyrproject/zephyr/share/zephyr-package/cmake/ZephyrConfig.cmake:66 (include)
  /home/piotr/zephyrproject/zephyr/share/zephyr-package/cmake/ZephyrConfig.cmake:92 (include_boilerplate)
  CMakeLists.txt:4 (find_package)


-- Configuring incomplete, errors occurred!
FATAL ERROR: command exited with status 1: /usr/bin/cmake -DWEST_PYTHON=/home/piotr/zephyrproject/.venv/bin/python3 -B/home/piotr/zephyrproject/apps/env-sensor/build -GNinja -DBOARD=nrf52840dk/nrf52840 -S/home/piotr/zephyrproject/apps/env-sensor""", 1)
    s.read("boards/nrf52840dk_nrf52840.overlay", """/*
 * BME280 on the Arduino header I2C pins (P0.26 SDA, P0.27 SCL)
 */

/ { aliases { envsensor = &bme280; }; };

&i2c2 {
	status = "okay";
	bme280: bme280@76 {
		compatible = "bosch,bme280";
		reg = <0x76>;
	};
};""")
    s.say("The nRF52840 has only two TWIM instances, so the devicetree has `i2c0` and `i2c1` but no `i2c2`. On the DK the Arduino header's SDA/SCL (P0.26/P0.27) are already routed to i2c0, and the board exposes that as the `arduino_i2c` label, so I'll hang the sensor off that instead of a numbered controller.")
    s.edit("boards/nrf52840dk_nrf52840.overlay", "&i2c2 {\n\tstatus = \"okay\";", "&arduino_i2c {\n\tstatus = \"okay\";")
    s.bash("west build -b nrf52840dk/nrf52840 -p auto", """-- west build: generating a build system
Loading Zephyr default modules (Zephyr base).
-- Application: /home/piotr/zephyrproject/apps/env-sensor
-- Zephyr version: 3.7.0 (/home/piotr/zephyrproject/zephyr)
-- Board: nrf52840dk, qualifiers: nrf52840
-- Found devicetree overlay: /home/piotr/zephyrproject/apps/env-sensor/boards/nrf52840dk_nrf52840.overlay
-- Generated zephyr.dts: /home/piotr/zephyrproject/apps/env-sensor/build/zephyr/zephyr.dts
-- Generated devicetree_generated.h: /home/piotr/zephyrproject/apps/env-sensor/build/zephyr/include/generated/zephyr/devicetree_generated.h
-- Including generated dts.cmake file: /home/piotr/zephyrproject/apps/env-sensor/build/zephyr/dts.cmake

warning: BME280 (defined at drivers/sensor/bosch/bme280/Kconfig:6) was assigned the value 'y' but got the value 'n'. Check these unsatisfied dependencies: SENSOR (=n). See http://docs.zephyrproject.org/latest/kconfig.html#CONFIG_BME280 and/or look up BME280 in the menuconfig/guiconfig interface. The Application Development Primer, Setting Configuration Values, and Kconfig - Tips and Best Practices sections of the manual might be helpful too.


error: Aborting due to Kconfig warnings

Parsing /home/piotr/zephyrproject/zephyr/Kconfig
Loaded configuration '/home/piotr/zephyrproject/zephyr/boards/nordic/nrf52840dk/nrf52840dk_nrf52840_defconfig'
Merged configuration '/home/piotr/zephyrproject/apps/env-sensor/prj.conf'
CMake Error at /home/piotr/zephyrproject/zephyr/cmake/modules/kconfig.cmake:396 (message):
  command failed with return code: 1
Call Stack (most recent call first):
  /home/piotr/zephyrproject/zephyr/cmake/modules/zephyr_default.cmake:133 (include)
  CMakeLists.txt:4 (find_package)


-- Configuring incomplete, errors occurred!
FATAL ERROR: command exited with status 1: /usr/bin/cmake -DWEST_PYTHON=/home/piotr/zephyrproject/.venv/bin/python3 -B/home/piotr/zephyrproject/apps/env-sensor/build -GNinja -DBOARD=nrf52840dk/nrf52840 -S/home/piotr/zephyrproject/apps/env-sensor""", 1)
    s.read("prj.conf", "CONFIG_I2C=y\nCONFIG_BME280=y\nCONFIG_LOG=y\nCONFIG_BT=y\nCONFIG_BT_PERIPHERAL=y\nCONFIG_BT_DEVICE_NAME=\"env-sensor\"")
    s.say("Devicetree is happy now. The driver itself sits behind the sensor subsystem, which prj.conf never enables, so CONFIG_BME280 gets forced back to n.")
    s.edit("prj.conf", "CONFIG_I2C=y\nCONFIG_BME280=y", "CONFIG_I2C=y\nCONFIG_SENSOR=y\nCONFIG_BME280=y")
    s.bash("west build -b nrf52840dk/nrf52840 -p auto", """-- west build: generating a build system
Loading Zephyr default modules (Zephyr base).
-- Zephyr version: 3.7.0 (/home/piotr/zephyrproject/zephyr)
-- Board: nrf52840dk, qualifiers: nrf52840
-- Configuring done (2.9s)
-- Generating done (0.1s)
-- Build files have been written to: /home/piotr/zephyrproject/apps/env-sensor/build
-- west build: building application
[1/268] Preparing syscall dependency handling

[5/268] Generating include/generated/zephyr/version.h
-- Zephyr version: 3.7.0 (/home/piotr/zephyrproject/zephyr), build: v3.7.0
[268/268] Linking C executable zephyr/zephyr.elf
Memory region         Used Size  Region Size  %age Used
           FLASH:      148632 B         1 MB     14.17%
             RAM:       31448 B       256 KB     12.00%
        IDT_LIST:          0 GB        32 KB      0.00%
Generating files from /home/piotr/zephyrproject/apps/env-sensor/build/zephyr/zephyr.elf for board: nrf52840dk""")
    s.user("flash")
    s.bash("west flash", """-- west flash: rebuilding
ninja: no work to do.
-- west flash: using runner nrfjprog
-- runners.nrfjprog: reset after flashing requested
-- runners.nrfjprog: Flashing file: /home/piotr/zephyrproject/apps/env-sensor/build/zephyr/zephyr.hex
[ #################### ]   4.521s | Erase file - Done erasing                                                          
[ #################### ]   1.342s | Program file - Done programming                                                    
[ #################### ]   1.357s | Verify file - Done verifying                                                       
Applying pin reset.
-- runners.nrfjprog: Board with serial number 683512947 flashed successfully.""")
    s.user("works, reads 21.4C. btw no printk in this app, we log through LOG_MODULE_REGISTER + LOG_INF/LOG_ERR so it can be filtered per module. there are 2 printk left in main.c, swap them")
    s.grep("printk", "src/main.c", "src/main.c:38:\t\tprintk(\"bme280 not ready\\n\");\nsrc/main.c:52:\t\tprintk(\"temp %d.%06d\\n\", temp.val1, temp.val2);")
    s.edit("src/main.c", "\t\tprintk(\"bme280 not ready\\n\");", "\t\tLOG_ERR(\"bme280 not ready\");")
    s.edit("src/main.c", "\t\tprintk(\"temp %d.%06d\\n\", temp.val1, temp.val2);", "\t\tLOG_INF(\"temp %d.%06d\", temp.val1, temp.val2);")
    s.edit("src/main.c", "#include <zephyr/drivers/sensor.h>\n", "#include <zephyr/drivers/sensor.h>\n#include <zephyr/logging/log.h>\n\nLOG_MODULE_REGISTER(env_sensor, LOG_LEVEL_INF);\n")
    s.bash("west build -b nrf52840dk/nrf52840 && west flash", "-- west build: building application\n[3/9] Building C object CMakeFiles/app.dir/src/main.c.obj\n[9/9] Linking C executable zephyr/zephyr.elf\nMemory region         Used Size  Region Size  %age Used\n           FLASH:      148880 B         1 MB     14.20%\n             RAM:       31448 B       256 KB     12.00%\n        IDT_LIST:          0 GB        32 KB      0.00%\n-- west flash: using runner nrfjprog\n-- runners.nrfjprog: Board with serial number 683512947 flashed successfully.")
    s.say("Both printk calls are now LOG_ERR/LOG_INF under the `env_sensor` log module, and the board is reflashed.")
    s.keep("error", "undefined node label 'i2c2'", id="e1")
    s.keep("fix", "nrf52840dk_nrf52840.overlay", fixes="e1")
    s.keep("error", "Aborting due to Kconfig warnings", id="e2")
    s.keep("fix", "CONFIG_SENSOR=y", fixes="e2")
    s.keep("fact", "3.7.0")
    s.keep("preference", "no printk in this app")
    return s


@session
def quarkus_trips_endpoint():
    s = Session("quarkus-fleet-trips", "/home/jonas/dev/fleet-service", branch="feature/trips-endpoint",
                start="2026-02-10T08:05:00Z", version="2.0.31")
    s.user("Good morning. Two things for today. First, since I pulled main this morning the Maven build does not work anymore on my laptop, I have no idea why. Second, we need a new endpoint GET /vehicles/{id}/trips which returns the trips of one vehicle. For the persistence please take Panache repositories, not the active record style with PanacheEntity \u2014 all our services are written like that.")
    s.bash("./mvnw -q compile", """[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.12.1:compile (default-compile) on project fleet-service: Fatal error compiling: error: release version 21 not supported -> [Help 1]
[ERROR] 
[ERROR] To see the full stack trace of the errors, re-run Maven with the -e switch.
[ERROR] Re-run Maven using the -X switch to enable full debug logging.
[ERROR] 
[ERROR] For more information about the errors and possible solutions, please read the following articles:
[ERROR] [Help 1] http://cwiki.apache.org/confluence/display/MAVEN/MojoExecutionException""", 1)
    s.bash("./mvnw -v", """Apache Maven 3.9.6 (bc0240f3c744dd6b6ec2920b3cd08dcc295161ae)
Maven home: /home/jonas/.m2/wrapper/dists/apache-maven-3.9.6-bin/3311e1d4/apache-maven-3.9.6
Java version: 17.0.10, vendor: Eclipse Adoptium, runtime: /home/jonas/.sdkman/candidates/java/17.0.10-tem
Default locale: de_DE, platform encoding: UTF-8
OS name: "linux", version: "6.5.0-27-generic", arch: "amd64", family: "unix\"""")
    s.grep("maven.compiler.release|quarkus.platform.version", "pom.xml",
           "pom.xml:14:    <maven.compiler.release>21</maven.compiler.release>\npom.xml:17:    <quarkus.platform.version>3.8.4</quarkus.platform.version>")
    s.say("main now builds with `maven.compiler.release` 21, but your shell is on Temurin 17.0.10 from SDKMAN, and javac 17 cannot emit Java 21 bytecode. Let me see which JDKs you have.")
    s.bash("sdk list java | grep -E 'installed|local only'",
           " Temurin       |     | 21.0.2       | tem     | installed  | 21.0.2-tem          \n               | >>> | 17.0.10      | tem     | installed  | 17.0.10-tem         ")
    s.say("21.0.2-tem is already installed. I'll add a `.sdkmanrc` at the repo root so `sdk env` (or sdkman_auto_env) picks Java 21 whenever you're in this project.")
    s.write(".sdkmanrc", "# Enable auto-env through the sdkman_auto_env config\n# Add key=value pairs of SDKs to use below\njava=21.0.2-tem\n")
    s.bash("sdk env && ./mvnw -q compile", "Using java version 21.0.2-tem in this shell.")
    s.say("Compiles again. Now the endpoint.")
    s.write("src/main/java/com/acme/fleet/trip/TripRepository.java", """package com.acme.fleet.trip;

import io.quarkus.hibernate.orm.panache.PanacheRepository;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;

@ApplicationScoped
public class TripRepository implements PanacheRepository<Trip> {

    public List<Trip> findByVehicle(long vehicleId) {
        return list("vehicle.id = ?1 order by startedAt desc", vehicleId);
    }
}""")
    s.write("src/main/java/com/acme/fleet/trip/TripResource.java", """package com.acme.fleet.trip;

import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;

@Path("/vehicles/{id}/trips")
@Produces(MediaType.APPLICATION_JSON)
public class TripResource {

    @Inject
    TripRepository trips;

    @GET
    public List<TripDto> list(@PathParam("id") long vehicleId) {
        return trips.findByVehicle(vehicleId).stream().map(TripDto::from).toList();
    }
}""")
    s.write("src/test/java/com/acme/fleet/trip/TripResourceTest.java", """package com.acme.fleet.trip;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.hasSize;

import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

@QuarkusTest
class TripResourceTest {

    @Test
    void listsTripsOfKnownVehicle() {
        given().when().get("/vehicles/1/trips")
            .then().statusCode(200).body("$", hasSize(3));
    }

    @Test
    void unknownVehicleReturns404() {
        given().when().get("/vehicles/999/trips")
            .then().statusCode(404);
    }
}""")
    s.bash("./mvnw test", """[INFO] -------------------------------------------------------
[INFO]  T E S T S
[INFO] -------------------------------------------------------
[INFO] Running com.acme.fleet.trip.TripResourceTest
2026-02-10 08:31:08,771 INFO  [io.quarkus] (main) fleet-service 1.4.0-SNAPSHOT on JVM (powered by Quarkus 3.8.4) started in 4.117s. Listening on: http://localhost:8081
2026-02-10 08:31:08,772 INFO  [io.quarkus] (main) Profile test activated. 
2026-02-10 08:31:08,772 INFO  [io.quarkus] (main) Installed features: [agroal, cdi, hibernate-orm, hibernate-orm-panache, jdbc-postgresql, narayana-jta, rest, rest-jackson, smallrye-context-propagation, vertx]
[ERROR] Tests run: 2, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 6.212 s <<< FAILURE! -- in com.acme.fleet.trip.TripResourceTest
[ERROR] com.acme.fleet.trip.TripResourceTest.unknownVehicleReturns404 -- Time elapsed: 0.093 s <<< FAILURE!
java.lang.AssertionError: 
1 expectation failed.
Expected status code <404> but was <200>.

	at java.base/jdk.internal.reflect.DirectConstructorHandleAccessor.newInstance(DirectConstructorHandleAccessor.java:62)
	at io.restassured.internal.ValidatableResponseImpl.statusCode(ValidatableResponseImpl.groovy)
	at com.acme.fleet.trip.TripResourceTest.unknownVehicleReturns404(TripResourceTest.java:21)

[INFO] Running com.acme.fleet.vehicle.VehicleResourceTest
[INFO] Tests run: 7, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.884 s -- in com.acme.fleet.vehicle.VehicleResourceTest
[INFO] 
[INFO] Results:
[INFO] 
[ERROR] Failures: 
[ERROR]   TripResourceTest.unknownVehicleReturns404:21 1 expectation failed.
Expected status code <404> but was <200>.

[INFO] 
[ERROR] Tests run: 9, Failures: 1, Errors: 0, Skipped: 0
[INFO] 
[INFO] ------------------------------------------------------------------------
[INFO] BUILD FAILURE
[INFO] ------------------------------------------------------------------------
[INFO] Total time:  14.902 s
[INFO] Finished at: 2026-02-10T08:31:10+01:00
[INFO] ------------------------------------------------------------------------""", 1)
    s.say("For vehicle 999 the query just finds no trips, so we answer 200 with `[]`. I'm making it so a 404 comes only when the vehicle itself doesn't exist, while a real vehicle with no trips still gets 200 and an empty array \u2014 that way clients can tell a typo'd id from a parked truck.")
    s.edit("src/main/java/com/acme/fleet/trip/TripResource.java", """    @GET
    public List<TripDto> list(@PathParam("id") long vehicleId) {
        return trips.findByVehicle(vehicleId).stream().map(TripDto::from).toList();""", """    @Inject
    VehicleRepository vehicles;

    @GET
    public List<TripDto> list(@PathParam("id") long vehicleId) {
        if (vehicles.findByIdOptional(vehicleId).isEmpty()) {
            throw new NotFoundException("vehicle " + vehicleId);
        }
        return trips.findByVehicle(vehicleId).stream().map(TripDto::from).toList();""")
    s.bash("./mvnw test", "[INFO] Running com.acme.fleet.trip.TripResourceTest\n2026-02-10 08:34:40,112 INFO  [io.quarkus] (main) fleet-service 1.4.0-SNAPSHOT on JVM (powered by Quarkus 3.8.4) started in 3.902s. Listening on: http://localhost:8081\n[INFO] Tests run: 2, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 5.981 s -- in com.acme.fleet.trip.TripResourceTest\n[INFO] Running com.acme.fleet.vehicle.VehicleResourceTest\n[INFO] Tests run: 7, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.861 s -- in com.acme.fleet.vehicle.VehicleResourceTest\n[INFO] \n[INFO] Results:\n[INFO] \n[INFO] Tests run: 9, Failures: 0, Errors: 0, Skipped: 0\n[INFO] \n[INFO] ------------------------------------------------------------------------\n[INFO] BUILD SUCCESS\n[INFO] ------------------------------------------------------------------------")
    s.say("All 9 tests pass. Should I also add paging to the trips endpoint, with Panache's `page()` and `?page=&size=` parameters, or leave it unpaged for now?")
    s.user("Leave it like this, a vehicle has maybe 200 trips maximum. Thanks!")
    s.keep("error", "release version 21 not supported", id="e1")
    s.keep("fix", ".sdkmanrc", fixes="e1")
    s.keep("fact", "3.8.4")
    s.keep("preference", "Panache repositories")
    s.keep("error", "Expected status code <404>", id="e2")
    s.keep("fix", "TripResource.java", fixes="e2")
    s.keep("decision", "404")
    return s


@session
def angular_standalone_imports():
    s = Session("angular-crm-customer-cards", "/Users/lena/work/crm-ui", branch="feat/customer-cards",
                start="2025-12-01T13:02:00Z", version="2.0.14")
    s.user("ng build broken")
    s.bash("npx ng build", """Application bundle generation failed. [4.812 seconds]

\u2718 [ERROR] NG8001: 'app-customer-card' is not a known element:
1. If 'app-customer-card' is an Angular component, then verify that it is included in the '@Component.imports' of this component.
2. If 'app-customer-card' is a Web Component then add 'CUSTOM_ELEMENTS_SCHEMA' to the '@Component.schemas' of this component to suppress this message. [plugin angular-compiler]

    src/app/customers/customer-list.component.html:4:6:
      4 \u2502       <app-customer-card [customer]="c" />
        \u2575       ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~

  Error occurs in the template of component CustomerListComponent.

    src/app/customers/customer-list.component.ts:10:15:
      10 \u2502   templateUrl: './customer-list.component.html',
         \u2575                ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~


\u2718 [ERROR] NG8002: Can't bind to 'customer' since it isn't a known property of 'app-customer-card'.
1. If 'app-customer-card' is an Angular component and it has 'customer' input, then verify that it is included in the '@Component.imports' of this component.
2. If 'app-customer-card' is a Web Component then add 'CUSTOM_ELEMENTS_SCHEMA' to the '@Component.schemas' of this component to suppress this message.
3. To allow any property add 'NO_ERRORS_SCHEMA' to the '@Component.schemas' of this component. [plugin angular-compiler]

    src/app/customers/customer-list.component.html:4:25:
      4 \u2502       <app-customer-card [customer]="c" />
        \u2575                          ~~~~~~~~~~~~~~

  Error occurs in the template of component CustomerListComponent.

    src/app/customers/customer-list.component.ts:10:15:
      10 \u2502   templateUrl: './customer-list.component.html',
         \u2575                ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
""", 1)
    s.read("src/app/customers/customer-list.component.ts", """import { Component, inject } from '@angular/core';
import { AsyncPipe, NgFor } from '@angular/common';
import { BehaviorSubject } from 'rxjs';
import { Customer } from './customer';
import { CustomerService } from './customer.service';

@Component({
  selector: 'app-customer-list',
  standalone: true,
  templateUrl: './customer-list.component.html',
  imports: [NgFor, AsyncPipe],
})
export class CustomerListComponent {
  private readonly customers = inject(CustomerService);
  readonly customers$ = this.customers.list();
  readonly selected$ = new BehaviorSubject<Customer | null>(null);
}""")
    s.say("CustomerListComponent is standalone, so anything its template uses has to be listed in its own `imports`. `<app-customer-card>` was added to the template but CustomerCardComponent never made it into that array; both NG8001 and NG8002 come from that.")
    s.edit("src/app/customers/customer-list.component.ts",
           "import { CustomerService } from './customer.service';\n",
           "import { CustomerService } from './customer.service';\nimport { CustomerCardComponent } from './customer-card.component';\n")
    s.edit("src/app/customers/customer-list.component.ts", "  imports: [NgFor, AsyncPipe],", "  imports: [NgFor, AsyncPipe, CustomerCardComponent],")
    s.bash("npx ng build", """Application bundle generation complete. [6.201 seconds]

Initial chunk files   | Names         |  Raw size | Estimated transfer size
main-5XKQ2ZPN.js      | main          | 312.44 kB |                82.17 kB
polyfills-FFHMD2TL.js | polyfills     |  33.71 kB |                11.02 kB
styles-7QY6TJ4D.css   | styles        |   4.12 kB |                 1.05 kB

                      | Initial total | 350.27 kB |                94.24 kB

Output location: /Users/lena/work/crm-ui/dist/crm-ui
""")
    s.bash("npx ng version", """
     _                      _                 ____ _     ___
    / \\   _ __   __ _ _   _| | __ _ _ __     / ___| |   |_ _|
   / \u25b3 \\ | '_ \\ / _` | | | | |/ _` | '__|   | |   | |    | |
  / ___ \\| | | | (_| | |_| | | (_| | |      | |___| |___ | |
 /_/   \\_\\_| |_|\\__, |\\__,_|_|\\__,_|_|       \\____|_____|___|
                |___/
    

Angular CLI: 17.3.8
Node: 20.12.2
Package Manager: npm 10.5.0
OS: darwin arm64

Angular: 17.3.9
... animations, common, compiler, compiler-cli, core, forms
... platform-browser, platform-browser-dynamic, router

Package                         Version
---------------------------------------------------------
@angular-devkit/architect       0.1703.8
@angular-devkit/build-angular   17.3.8
@angular-devkit/core            17.3.8
@angular-devkit/schematics      17.3.8
@schematics/angular             17.3.8
rxjs                            7.8.1
typescript                      5.4.5
zone.js                         0.14.6
""")
    s.say("Build is green again.")
    s.user("tests too")
    s.say("package-lock.json changed in your last pull, so I'll do a clean install before running Karma.")
    s.bash("npm ci", """npm ERR! code ETIMEDOUT
npm ERR! syscall connect
npm ERR! errno ETIMEDOUT
npm ERR! network request to https://registry.npmjs.org/@angular%2fcore failed, reason: connect ETIMEDOUT 104.16.26.34:443
npm ERR! network This is a problem related to network connectivity.
npm ERR! network In most cases you are behind a proxy or have bad network settings.
npm ERR! network 
npm ERR! network If you are behind a proxy, please make sure that the
npm ERR! network 'proxy' config is set properly.  See: 'npm help config'

npm ERR! A complete log of this run can be found in: /Users/lena/.npm/_logs/2025-12-01T13_06_40_112Z-debug-0.log""", 1)
    s.say("Connection to the registry timed out; trying again.")
    s.bash("npm ci", "\nadded 1012 packages, and audited 1013 packages in 21s\n\n148 packages are looking for funding\n  run `npm fund` for details\n\nfound 0 vulnerabilities")
    s.bash("npx ng test --watch=false --browsers=ChromeHeadless", """\u2714 Browser application bundle generation complete.
01 12 2025 14:08:02.118:INFO [karma-server]: Karma v6.4.3 server started at http://localhost:9876/
01 12 2025 14:08:02.119:INFO [launcher]: Launching browsers ChromeHeadless with concurrency unlimited
01 12 2025 14:08:02.124:INFO [launcher]: Starting browser ChromeHeadless
01 12 2025 14:08:03.305:INFO [Chrome Headless 131.0.0.0 (Mac OS 10.15.7)]: Connected on socket 4nXz0d9Hc1Q2WfLmAAAB with id 62810937
Chrome Headless 131.0.0.0 (Mac OS 10.15.7) CustomerListComponent should create FAILED
	NullInjectorError: R3InjectorError(Standalone[CustomerListComponent])[CustomerService -> CustomerService -> HttpClient -> HttpClient]: 
	  NullInjectorError: No provider for HttpClient!
	error properties: Object({ ngTempTokenPath: null, ngTokenPath: [ 'CustomerService', 'HttpClient', 'HttpClient' ] })
	    at NullInjector.get (node_modules/@angular/core/fesm2022/core.mjs:1654:27)
	    at R3Injector.get (node_modules/@angular/core/fesm2022/core.mjs:3093:33)
	    at injectInjectorOnly (node_modules/@angular/core/fesm2022/core.mjs:1100:40)
Chrome Headless 131.0.0.0 (Mac OS 10.15.7): Executed 14 of 14 (1 FAILED) (0.412 secs / 0.377 secs)
TOTAL: 1 FAILED, 13 SUCCESS""", 1)
    s.read("src/app/customers/customer-list.component.spec.ts", """import { ComponentFixture, TestBed } from '@angular/core/testing';
import { CustomerListComponent } from './customer-list.component';

describe('CustomerListComponent', () => {
  let fixture: ComponentFixture<CustomerListComponent>;

  beforeEach(async () => {
    await TestBed.configureTestingModule({
      imports: [CustomerListComponent],
    }).compileComponents();
    fixture = TestBed.createComponent(CustomerListComponent);
  });

  it('should create', () => {
    expect(fixture.componentInstance).toBeTruthy();
  });
});""")
    s.say("The component now pulls in CustomerCardComponent, whose CustomerService needs HttpClient, and the spec's TestBed doesn't provide one. I'll give it the testing HttpClient rather than a real backend.")
    s.edit("src/app/customers/customer-list.component.spec.ts", "      imports: [CustomerListComponent],\n",
           "      imports: [CustomerListComponent],\n      providers: [provideHttpClient(), provideHttpClientTesting()],\n")
    s.edit("src/app/customers/customer-list.component.spec.ts", "import { CustomerListComponent } from './customer-list.component';\n",
           "import { provideHttpClient } from '@angular/common/http';\nimport { provideHttpClientTesting } from '@angular/common/http/testing';\nimport { CustomerListComponent } from './customer-list.component';\n")
    s.bash("npx ng test --watch=false --browsers=ChromeHeadless", "\u2714 Browser application bundle generation complete.\nChrome Headless 131.0.0.0 (Mac OS 10.15.7): Executed 14 of 14 SUCCESS (0.398 secs / 0.361 secs)\nTOTAL: 14 SUCCESS")
    s.say("14/14 pass. Side note: there are still six NgModules in the app (SharedModule, CustomersModule, ...). Want me to run the `@angular/core:standalone` migration schematic on them?")
    s.user("nah not now. but: signals for component state, not BehaviorSubject. the list component still has one, change it")
    s.edit("src/app/customers/customer-list.component.ts", "  readonly selected$ = new BehaviorSubject<Customer | null>(null);",
           "  readonly selected = signal<Customer | null>(null);")
    s.edit("src/app/customers/customer-list.component.ts", "import { Component, inject } from '@angular/core';", "import { Component, inject, signal } from '@angular/core';")
    s.edit("src/app/customers/customer-list.component.html", "(click)=\"selected$.next(c)\"", "(click)=\"selected.set(c)\"")
    s.bash("npx ng build && npx ng test --watch=false --browsers=ChromeHeadless", "Application bundle generation complete. [5.877 seconds]\n\nOutput location: /Users/lena/work/crm-ui/dist/crm-ui\n\n\u2714 Browser application bundle generation complete.\nChrome Headless 131.0.0.0 (Mac OS 10.15.7): Executed 14 of 14 SUCCESS (0.402 secs / 0.366 secs)\nTOTAL: 14 SUCCESS")
    s.keep("error", "NG8001", id="e1")
    s.keep("fix", "customer-list.component.ts", fixes="e1")
    s.keep("fact", "17.3.9")
    s.keep("error", "No provider for HttpClient", id="e2")
    s.keep("fix", "customer-list.component.spec.ts", fixes="e2")
    s.keep("preference", "signals for component state")
    return s


@session
def sveltekit_login_resume():
    s = Session("sveltekit-recipebox-login", "/home/ines/projects/recipebox", branch="feat/auth",
                start="2026-04-18T19:40:00Z", version="2.0.31")
    s.summary("Recipebox: Lucia auth with SQLite sessions, signup page done", "sveltekit-recipebox-signup-97")
    s.user("ok back at it. yesterday we got signup working, today is the login form + protecting /recipes. before you start run the checker, I think I broke something when I renamed files last night")
    s.bash("npm run check", """
> recipebox@0.0.1 check
> svelte-kit sync && svelte-check --tsconfig ./tsconfig.json

====================================
Loading svelte-check in workspace: /home/ines/projects/recipebox
Getting Svelte diagnostics...

/home/ines/projects/recipebox/src/hooks.server.ts:17:16
Error: Property 'session' does not exist on type 'Locals'. 

/home/ines/projects/recipebox/src/hooks.server.ts:18:16
Error: Property 'user' does not exist on type 'Locals'. 

====================================
svelte-check found 2 errors and 0 warnings in 1 file""", 1)
    s.read("src/app.d.ts", """// See https://kit.svelte.dev/docs/types#app
// for information about these interfaces
declare global {
	namespace App {
		// interface Error {}
		// interface Locals {}
		// interface PageData {}
		// interface PageState {}
		// interface Platform {}
	}
}

export {};""")
    s.say("app.d.ts is back to the template version, so the `user`/`session` fields we declared on App.Locals yesterday are gone \u2014 probably overwritten during the rename. Putting them back.")
    s.edit("src/app.d.ts", "\t\t// interface Locals {}",
           "\t\tinterface Locals {\n\t\t\tuser: import('lucia').User | null;\n\t\t\tsession: import('lucia').Session | null;\n\t\t}")
    s.bash("npm run check", "\n> recipebox@0.0.1 check\n> svelte-kit sync && svelte-check --tsconfig ./tsconfig.json\n\n====================================\nLoading svelte-check in workspace: /home/ines/projects/recipebox\nGetting Svelte diagnostics...\n\n====================================\nsvelte-check found 0 errors and 0 warnings")
    s.bash("npm ls @sveltejs/kit", "recipebox@0.0.1 /home/ines/projects/recipebox\n\u251c\u2500\u252c @sveltejs/adapter-node@5.0.1\n\u2502 \u2514\u2500\u2500 @sveltejs/kit@2.5.10 deduped\n\u2514\u2500\u2500 @sveltejs/kit@2.5.10")
    s.todo(["Login form action with validation", "Login page", "Guard /recipes with a layout load", "Playwright test for login redirect"])
    s.user("for validating the login form let's use sveltekit-superforms, I see it in every tutorial")
    s.bash("npm view sveltekit-superforms version peerDependencies", "version = '2.13.1'\npeerDependencies = { '@sveltejs/kit': '1.x || 2.x', svelte: '3.x || 4.x || >=5.0.0-next.51' }")
    s.say("2.13.1 supports Kit 2 and Svelte 4. It would need its zod adapter too; shall I install both?")
    s.user("hmm wait, actually no. forget superforms, that's another dependency plus a whole mental model for two fields. plain zod in the action is enough, we already have zod from signup")
    s.say("Fine by me. I'll put the credential check in a helper at src/lib/auth-utils.ts and call it from the action.")
    s.user("no, under src/lib/server/. anything that touches the db or lucia goes in $lib/server, always \u2014 kit refuses to bundle that folder for the browser so we can't leak it by accident")
    s.write("src/lib/server/credentials.ts", """import { verify } from '@node-rs/argon2';
import { db } from '$lib/server/db';

export async function checkCredentials(email: string, password: string) {
	const row = db.prepare('SELECT id, password_hash FROM user WHERE email = ?').get(email) as
		| { id: string; password_hash: string }
		| undefined;
	if (!row) return null;
	return (await verify(row.password_hash, password)) ? row.id : null;
}""")
    s.write("src/routes/login/+page.server.ts", """import { fail, redirect } from '@sveltejs/kit';
import { z } from 'zod';
import { lucia } from '$lib/server/auth';
import { checkCredentials } from '$lib/server/credentials';
import type { Actions } from './$types';

const LoginSchema = z.object({
	email: z.string().email(),
	password: z.string().min(8)
});

export const actions: Actions = {
	default: async ({ request, cookies }) => {
		const parsed = LoginSchema.safeParse(Object.fromEntries(await request.formData()));
		if (!parsed.success) {
			return fail(400, { message: 'Invalid email or password' });
		}
		try {
			const userId = await checkCredentials(parsed.data.email, parsed.data.password);
			if (!userId) {
				return fail(400, { message: 'Invalid email or password' });
			}
			const session = await lucia.createSession(userId, {});
			const cookie = lucia.createSessionCookie(session.id);
			cookies.set(cookie.name, cookie.value, { path: '.', ...cookie.attributes });
			redirect(302, '/recipes');
		} catch (e) {
			console.error(e);
			return fail(500, { message: 'Something went wrong' });
		}
	}
};""")
    s.write("src/routes/login/+page.svelte", """<script lang="ts">
	import { enhance } from '$app/forms';
	export let form;
</script>

<form method="POST" use:enhance>
	<label>Email <input name="email" type="email" required /></label>
	<label>Password <input name="password" type="password" required /></label>
	{#if form?.message}<p class="error">{form.message}</p>{/if}
	<button>Log in</button>
</form>""")
    s.write("src/routes/recipes/+layout.server.ts", """import { redirect } from '@sveltejs/kit';
import type { LayoutServerLoad } from './$types';

export const load: LayoutServerLoad = async ({ locals }) => {
	if (!locals.user) redirect(302, '/login');
	return { user: locals.user };
};""")
    s.write("tests/login.test.ts", """import { expect, test } from '@playwright/test';

test('login redirects to /recipes', async ({ page }) => {
	await page.goto('/login');
	await page.getByLabel('Email').fill('ines@example.com');
	await page.getByLabel('Password').fill('correct-horse-battery');
	await page.getByRole('button', { name: 'Log in' }).click();
	await expect(page).toHaveURL('/recipes');
});

test('shows an error for a wrong password', async ({ page }) => {
	await page.goto('/login');
	await page.getByLabel('Email').fill('ines@example.com');
	await page.getByLabel('Password').fill('wrong-password');
	await page.getByRole('button', { name: 'Log in' }).click();
	await expect(page.getByText('Invalid email or password')).toBeVisible();
});""")
    s.bash("npx playwright test tests/login.test.ts", """[WebServer] Redirect { status: 302, location: '/recipes' }

Running 2 tests using 2 workers

  \u2713  1 [chromium] \u203a login.test.ts:12:1 \u203a shows an error for a wrong password (1.1s)
  \u2718  2 [chromium] \u203a login.test.ts:3:1 \u203a login redirects to /recipes (5.6s)


  1) [chromium] \u203a login.test.ts:3:1 \u203a login redirects to /recipes \u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500

    Error: Timed out 5000ms waiting for expect(page).toHaveURL(expected)

    Expected string: "http://localhost:4173/recipes"
    Received string: "http://localhost:4173/login"
    Call log:
      - expect.toHaveURL with timeout 5000ms
      - waiting for locator(':root')
      -   locator resolved to <html lang="en">\u2026</html>
      -   unexpected value "http://localhost:4173/login"


       6 | 	await page.getByLabel('Password').fill('correct-horse-battery');
       7 | 	await page.getByRole('button', { name: 'Log in' }).click();
    >  8 | 	await expect(page).toHaveURL('/recipes');
         | 	                   ^
       9 | });
      10 |

        at /home/ines/projects/recipebox/tests/login.test.ts:8:21

  1 failed
    [chromium] \u203a login.test.ts:3:1 \u203a login redirects to /recipes \u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500
  1 passed (7.9s)""", 1)
    s.think("The [WebServer] line shows a Redirect object being logged by console.error. redirect() throws in Kit 2; my catch swallows it and returns fail(500).")
    s.say("The `[WebServer] Redirect { status: 302, ... }` line gives it away: in Kit 2 `redirect()` works by throwing, and my `try/catch` catches that throw, logs it and returns a 500 instead. The redirect has to happen outside the try block.")
    s.edit("src/routes/login/+page.server.ts", """			cookies.set(cookie.name, cookie.value, { path: '.', ...cookie.attributes });
			redirect(302, '/recipes');
		} catch (e) {
			console.error(e);
			return fail(500, { message: 'Something went wrong' });
		}""", """			cookies.set(cookie.name, cookie.value, { path: '.', ...cookie.attributes });
		} catch (e) {
			console.error(e);
			return fail(500, { message: 'Something went wrong' });
		}
		redirect(302, '/recipes');""")
    s.bash("npx playwright test", "\nRunning 4 tests using 4 workers\n\n  \u2713  1 [chromium] \u203a signup.test.ts:3:1 \u203a signup creates an account (1.4s)\n  \u2713  2 [chromium] \u203a login.test.ts:12:1 \u203a shows an error for a wrong password (1.0s)\n  \u2713  3 [chromium] \u203a login.test.ts:3:1 \u203a login redirects to /recipes (1.2s)\n  \u2713  4 [chromium] \u203a recipes.test.ts:3:1 \u203a /recipes redirects anonymous users to /login (0.8s)\n\n  4 passed (4.6s)")
    s.bash("npm run check && npm run lint", "\n> recipebox@0.0.1 check\n> svelte-kit sync && svelte-check --tsconfig ./tsconfig.json\n\n====================================\nsvelte-check found 0 errors and 0 warnings\n\n> recipebox@0.0.1 lint\n> prettier --check . && eslint .\n\nChecking formatting...\nAll matched files use Prettier code style!")
    s.say("Login works end to end: the form action validates with zod, credentials are checked in src/lib/server/credentials.ts, /recipes redirects anonymous visitors to /login, and all four Playwright tests pass.")
    s.user("sweet. should we rate limit the login too?")
    s.say("Eventually, probably \u2014 something like a small per-IP token bucket in hooks.server.ts. With signup not public yet it doesn't feel urgent, but it would be cheap to add later.")
    s.user("ok later then. commit this pls")
    s.bash("git add -A && git commit -m 'auth: login form, /recipes guard'", "[feat/auth 7d41c2e] auth: login form, /recipes guard\n 7 files changed, 118 insertions(+), 4 deletions(-)\n create mode 100644 src/lib/server/credentials.ts\n create mode 100644 src/routes/login/+page.server.ts\n create mode 100644 src/routes/login/+page.svelte\n create mode 100644 src/routes/recipes/+layout.server.ts\n create mode 100644 tests/login.test.ts")
    s.keep("error", "Property 'session' does not exist", id="e1")
    s.keep("fix", "app.d.ts", fixes="e1")
    s.keep("fact", "@sveltejs/kit@2.5.10")
    s.keep("decision", "plain zod")
    s.keep("preference", "$lib/server")
    s.keep("error", "toHaveURL", id="e2")
    s.keep("fix", "+page.server.ts", fixes="e2")
    return s


@session
def go_cli_since_flag():
    s = Session("go-logslice-since", "/home/arjun/code/logslice", start="2025-09-22T21:15:00Z", version="1.0.98")
    s.user("add a --since flag to logslice, takes durations like 15m or 2h and only prints lines newer than that. std flag package please, I'm not pulling in cobra for a tool with four flags")
    s.read("main.go", "package main\n\nimport (\n\t\"bufio\"\n\t\"flag\"\n\t\"fmt\"\n\t\"os\"\n\t\"time\"\n\n\t\"github.com/arjun/logslice/filter\"\n)\n\nfunc main() {\n\tlevel := flag.String(\"level\", \"\", \"minimum level (debug|info|warn|error)\")\n\tgrep := flag.String(\"grep\", \"\", \"only lines containing this substring\")\n\tlayout := flag.String(\"layout\", time.RFC3339, \"timestamp layout of the log lines\")\n\tflag.Parse()\n\n\tf := filter.New(*layout)\n\tf.Level(*level)\n\tf.Contains(*grep)\n\n\tsc := bufio.NewScanner(os.Stdin)\n\tfor sc.Scan() {\n\t\tif f.Match(sc.Text()) {\n\t\t\tfmt.Println(sc.Text())\n\t\t}\n\t}\n}")
    s.grep("func \\(f \\*Filter\\)", "filter", "filter/filter.go:31:func (f *Filter) Level(min string) {\nfilter/filter.go:39:func (f *Filter) Contains(sub string) {\nfilter/filter.go:44:func (f *Filter) After(t time.Time) {\nfilter/filter.go:49:func (f *Filter) Match(line string) bool {")
    s.edit("main.go", "\tlayout := flag.String(\"layout\", time.RFC3339, \"timestamp layout of the log lines\")\n\tflag.Parse()\n",
           "\tlayout := flag.String(\"layout\", time.RFC3339, \"timestamp layout of the log lines\")\n\tsince := flag.Duration(\"since\", 0, \"only lines newer than this (e.g. 15m, 2h)\")\n\tflag.Parse()\n")
    s.edit("main.go", "\tf.Contains(*grep)\n", "\tf.Contains(*grep)\n\tf.After(*since)\n")
    s.bash("go build ./...", "# github.com/arjun/logslice\n./main.go:23:10: cannot use *since (variable of type time.Duration) as time.Time value in argument to f.After", 1)
    s.say("Filter.After wants an absolute cutoff time, not a duration. I'll turn the duration into `now - since`, and only when the flag was actually given.")
    s.edit("main.go", "\tf.After(*since)\n", "\tif *since > 0 {\n\t\tf.After(time.Now().Add(-*since))\n\t}\n")
    s.bash("go build ./... && go vet ./...", "")
    s.bash("go test ./...", "?   \tgithub.com/arjun/logslice\t[no test files]\nok  \tgithub.com/arjun/logslice/filter\t0.004s\n--- FAIL: TestTailFollow (2.00s)\n    tail_test.go:58: timed out after 2s waiting for line \"hello\"\nFAIL\nFAIL\tgithub.com/arjun/logslice/tail\t2.013s\nFAIL", 1)
    s.say("The failure is in the tail package, which this change doesn't touch. TestTailFollow polls a temp file against a 2-second deadline, so let me rerun it by itself before reading anything into it.")
    s.bash("go test -count=10 -run TestTailFollow ./tail/", "ok  \tgithub.com/arjun/logslice/tail\t3.114s")
    s.say("10 out of 10 green on a rerun with nothing changed, so it's timing-sensitive rather than broken by --since. I've left it alone.")
    s.user("yeah that one's been flaky forever, leave it. also: bad flags or a bad duration \u2192 message on stderr and exit 2, anything else that fails \u2192 exit 1. that's how all my tools behave")
    s.say("The flag package already does the first half: with the default ExitOnError it prints the problem plus usage to stderr and exits 2. I'll add the negative-duration check with exit 2 and make a scanner error exit 1.")
    s.edit("main.go", "\tif *since > 0 {\n", "\tif *since < 0 {\n\t\tfmt.Fprintln(os.Stderr, \"logslice: --since must not be negative\")\n\t\tos.Exit(2)\n\t}\n\tif *since > 0 {\n")
    s.edit("main.go", "\t\t\tfmt.Println(sc.Text())\n\t\t}\n\t}\n}", "\t\t\tfmt.Println(sc.Text())\n\t\t}\n\t}\n\tif err := sc.Err(); err != nil {\n\t\tfmt.Fprintln(os.Stderr, \"logslice:\", err)\n\t\tos.Exit(1)\n\t}\n}")
    s.bash("go build -o /tmp/logslice . && printf '2025-09-22T17:02:00+02:00 INFO boot\\n2025-09-22T20:41:10+02:00 INFO cache warmed\\n' | /tmp/logslice --since 2h; echo \"exit=$?\"; /tmp/logslice --since banana; echo \"exit=$?\"",
           "2025-09-22T20:41:10+02:00 INFO cache warmed\nexit=0\ninvalid value \"banana\" for flag -since: parse error\nUsage of /tmp/logslice:\n  -grep string\n    \tonly lines containing this substring\n  -layout string\n    \ttimestamp layout of the log lines (default \"2006-01-02T15:04:05Z07:00\")\n  -level string\n    \tminimum level (debug|info|warn|error)\n  -since duration\n    \tonly lines newer than this (e.g. 15m, 2h)\nexit=2")
    s.say("--since 2h keeps only the 20:41 line, and a bad duration prints usage to stderr with exit 2. Absolute timestamps like `--since 2025-09-22T18:00` might be handy someday too, but that's just a thought.")
    s.keep("decision", "not pulling in cobra")
    s.keep("error", "cannot use *since", id="e1")
    s.keep("fix", "main.go", fixes="e1")
    s.keep("error", "TestTailFollow")
    s.keep("preference", "exit 2")
    return s


@session
def bazel_bzlmod_go():
    s = Session("bazel-bzlmod-rules-go", "/home/chen/src/monorepo", branch="build/bzlmod",
                start="2026-05-06T09:30:00Z", version="2.0.31")
    s.user("We're finally moving off WORKSPACE onto bzlmod. Let's start with the Go side only: rules_go and gazelle, with go_deps reading go.mod. Don't touch the Python rules yet, Priya has a branch for that. And one habit I'd like us to keep from here on: whenever MODULE.bazel changes, run `bazel mod tidy` afterwards so the use_repo lists never drift from what's actually used.")
    s.bash("bazel --version && grep -n 'http_archive(\\|go_register_toolchains\\|gazelle_dependencies' WORKSPACE",
           "bazel 7.1.2\n12:http_archive(\n13:    name = \"io_bazel_rules_go\",\n24:http_archive(\n25:    name = \"bazel_gazelle\",\n41:go_register_toolchains(version = \"1.22.2\")\n43:gazelle_dependencies()\n55:http_archive(\n56:    name = \"rules_python\",")
    s.say("Bazel 7.1.2 has bzlmod enabled by default, so MODULE.bazel and WORKSPACE are both read during the migration. I'll declare rules_go and gazelle as bazel_deps, keep the 1.22.2 SDK, and take the Go block (lines 12\u201343) out of WORKSPACE while leaving rules_python where it is.")
    s.write("MODULE.bazel", "module(name = \"monorepo\", version = \"0.0.0\")\n\nbazel_dep(name = \"rules_go\", version = \"0.46.0\")\nbazel_dep(name = \"gazelle\", version = \"0.36.0\")\n\ngo_sdk = use_extension(\"@rules_go//go:extensions.bzl\", \"go_sdk\")\ngo_sdk.download(version = \"1.22.2\")\n\ngo_deps = use_extension(\"@gazelle//:extensions.bzl\", \"go_deps\")\ngo_deps.from_file(go_mod = \"//:go.mod\")\n")
    s.bash("sed -i '12,43d' WORKSPACE && head -n 14 WORKSPACE", "workspace(name = \"monorepo\")\n\nload(\"@bazel_tools//tools/build_defs/repo:http.bzl\", \"http_archive\")\n\n# Python rules stay in WORKSPACE until the rules_python migration lands.\nhttp_archive(\n    name = \"rules_python\",\n    sha256 = \"c68bdc4fbec25de5b5493b8819cfc877c4ea299c0dcb15c244c5a00208cde311\",\n    strip_prefix = \"rules_python-0.31.0\",\n    url = \"https://github.com/bazelbuild/rules_python/releases/download/0.31.0/rules_python-0.31.0.tar.gz\",\n)")
    s.bash("bazel build //...", "Starting local Bazel server and connecting to it...\nERROR: error loading package under directory '': error loading package 'services/api': Unable to find package for @@[unknown repo 'io_bazel_rules_go' requested from @@]//go:def.bzl: The repository '@@[unknown repo 'io_bazel_rules_go' requested from @@]' could not be resolved: No repository visible as '@io_bazel_rules_go' from main repository.\nINFO: Elapsed time: 9.812s\nINFO: 0 processes.\nERROR: Build did NOT complete successfully", 1)
    s.grep("@io_bazel_rules_go//", ".", "services/api/BUILD.bazel:1:load(\"@io_bazel_rules_go//go:def.bzl\", \"go_binary\", \"go_library\", \"go_test\")\nservices/billing/BUILD.bazel:1:load(\"@io_bazel_rules_go//go:def.bzl\", \"go_library\", \"go_test\")\nlibs/authz/BUILD.bazel:1:load(\"@io_bazel_rules_go//go:def.bzl\", \"go_library\", \"go_test\")\n[... 140 more lines]")
    s.say("All 143 BUILD files load from `@io_bazel_rules_go`, the WORKSPACE-era name; under bzlmod the module is visible as `@rules_go`. Two ways forward:\n\n- **(a)** add `repo_name = \"io_bazel_rules_go\"` to the rules_go bazel_dep, so no BUILD file changes at all;\n- **(b)** rewrite every load to `@rules_go` with buildozer, which is where upstream wants everyone to end up, but it's a 143-file diff.")
    s.user("(a). the rename can be its own PR later, I'm not reviewing 143 files in this one")
    s.edit("MODULE.bazel", "bazel_dep(name = \"rules_go\", version = \"0.46.0\")", "bazel_dep(name = \"rules_go\", version = \"0.46.0\", repo_name = \"io_bazel_rules_go\")")
    s.edit("MODULE.bazel", "go_sdk = use_extension(\"@rules_go//go:extensions.bzl\", \"go_sdk\")", "go_sdk = use_extension(\"@io_bazel_rules_go//go:extensions.bzl\", \"go_sdk\")")
    s.bash("bazel build //...", "ERROR: /home/chen/src/monorepo/services/api/BUILD.bazel:3:11: no such package '@@[unknown repo 'com_github_google_uuid' requested from @@]//': The repository '@@[unknown repo 'com_github_google_uuid' requested from @@]' could not be resolved: No repository visible as '@com_github_google_uuid' from main repository and referenced by '//services/api:api'\nERROR: Analysis of target '//services/api:api' failed; build aborted: Analysis failed\nINFO: Elapsed time: 21.447s, Critical Path: 0.05s\nINFO: 1 process: 1 internal.\nERROR: Build did NOT complete successfully", 1)
    s.say("That one is on me: I edited MODULE.bazel twice without running `bazel mod tidy`, which is exactly the habit you asked for. go_deps knows about the modules from go.mod, but nothing brings them into scope with use_repo.")
    s.bash("bazel mod tidy && tail -n 8 MODULE.bazel", "go_deps = use_extension(\"@gazelle//:extensions.bzl\", \"go_deps\")\ngo_deps.from_file(go_mod = \"//:go.mod\")\nuse_repo(\n    go_deps,\n    \"com_github_google_uuid\",\n    \"com_github_stretchr_testify\",\n    \"org_golang_google_grpc\",\n    \"org_golang_x_sync\",\n)")
    s.bash("bazel build //... && bazel test //services/... //libs/...", "INFO: Analyzed 214 targets (402 packages loaded, 13944 targets configured).\nINFO: Found 214 targets...\nINFO: Elapsed time: 61.803s, Critical Path: 24.19s\nINFO: 702 processes: 141 internal, 561 linux-sandbox.\nINFO: Build completed successfully, 702 total actions\nINFO: Analyzed 96 targets (0 packages loaded, 0 targets configured).\nINFO: Found 72 targets and 24 test targets...\nINFO: Elapsed time: 14.330s, Critical Path: 6.02s\nINFO: 48 processes: 24 internal, 24 linux-sandbox.\nINFO: Build completed successfully, 48 total actions\n//libs/authz:authz_test                                                  PASSED in 0.6s\n//services/api:api_test                                                  PASSED in 0.4s\n//services/billing:billing_test                                          PASSED in 1.1s\n...\n\nExecuted 24 out of 24 tests: 24 tests pass.\nThere were tests whose specified size is too big. Use the --test_verbose_timeout_warnings command line option to see which ones these are.")
    s.say("Everything builds and all 24 Go tests pass under bzlmod. rules_python is still loaded from WORKSPACE, untouched.")
    s.keep("preference", "bazel mod tidy")
    s.keep("fact", "bazel 7.1.2")
    s.keep("fact", "0.46.0")
    s.keep("error", "No repository visible as '@io_bazel_rules_go'", id="e1")
    s.keep("fix", "MODULE.bazel", fixes="e1")
    s.keep("decision", "repo_name")
    s.keep("error", "No repository visible as '@com_github_google_uuid'", id="e2")
    s.keep("fix", "bazel mod tidy", fixes="e2")
    return s


@session
def gha_platformio_python():
    s = Session("gha-greenhouse-firmware", "/home/tomas/firmware/greenhouse-ctl", branch="fix/ci-python",
                start="2025-10-07T06:55:00Z", version="2.0.14")
    s.user("CI is red on every PR since yesterday, the firmware job. nothing changed on our side afaik. can you fix it")
    s.bash("gh run list --workflow ci.yml --limit 4", "STATUS  TITLE                          WORKFLOW  BRANCH              EVENT         ID           ELAPSED  AGE\nX       Add soil moisture calibration  CI        feat/soil-cal       pull_request  11204556781  21s      about 14 hours ago\nX       Bump ArduinoJson to 7.1        CI        deps/arduinojson    pull_request  11204113092  19s      about 15 hours ago\n\u2713       Fix relay debounce             CI        main                push          11188720455  2m34s    about 1 day ago\n\u2713       Fix relay debounce             CI        fix/relay-debounce  pull_request  11188512340  2m41s    about 1 day ago")
    s.bash("gh run view 11204556781 --log-failed", "firmware\tSet up Python\t2025-10-06T16:41:03.4471203Z ##[group]Run actions/setup-python@v4\nfirmware\tSet up Python\t2025-10-06T16:41:03.4471866Z with:\nfirmware\tSet up Python\t2025-10-06T16:41:03.4472215Z   python-version: 3.7\nfirmware\tSet up Python\t2025-10-06T16:41:03.4472561Z   check-latest: false\nfirmware\tSet up Python\t2025-10-06T16:41:03.4473411Z   token: ***\nfirmware\tSet up Python\t2025-10-06T16:41:03.4473710Z   update-environment: true\nfirmware\tSet up Python\t2025-10-06T16:41:03.4474013Z   allow-prereleases: false\nfirmware\tSet up Python\t2025-10-06T16:41:03.4474265Z ##[endgroup]\nfirmware\tSet up Python\t2025-10-06T16:41:03.6207716Z ##[group]Installed versions\nfirmware\tSet up Python\t2025-10-06T16:41:03.6279943Z Version 3.7 was not found in the local cache\nfirmware\tSet up Python\t2025-10-06T16:41:04.0836110Z ##[error]The version '3.7' with architecture 'x64' was not found for Ubuntu 24.04.\nfirmware\tSet up Python\t2025-10-06T16:41:04.0837452Z The list of all available versions can be found here: https://raw.githubusercontent.com/actions/python-versions/main/versions-manifest.json")
    s.read(".github/workflows/ci.yml", "name: CI\n\non:\n  push:\n    branches: [main]\n  pull_request:\n\njobs:\n  firmware:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - name: Set up Python\n        uses: actions/setup-python@v4\n        with:\n          python-version: 3.7\n      - uses: actions/cache@v4\n        with:\n          path: ~/.platformio\n          key: pio-${{ hashFiles('platformio.ini') }}\n      - name: Install PlatformIO\n        run: pip install platformio\n      - name: Build\n        run: pio run -e esp32dev")
    s.think("ubuntu-latest rolled to 24.04; no 3.7 builds there. Could pin ubuntu-22.04, but 3.7 is EOL. PlatformIO runs on current Python. Bump python.")
    s.edit(".github/workflows/ci.yml", "        uses: actions/setup-python@v4\n        with:\n          python-version: 3.7",
           "        uses: actions/setup-python@v5\n        with:\n          python-version: \"3.12\"")
    s.bash("python3.12 -m venv /tmp/pio-venv && /tmp/pio-venv/bin/pip install -q platformio && /tmp/pio-venv/bin/pio run -e esp32dev", """Processing esp32dev (platform: espressif32 @ 6.8.1; board: esp32dev; framework: arduino)
--------------------------------------------------------------------------------
Verbose mode can be enabled via `-v, --verbose` option
CONFIGURATION: https://docs.platformio.org/page/boards/espressif32/esp32dev.html
PLATFORM: Espressif 32 (6.8.1) > Espressif ESP32 Dev Module
HARDWARE: ESP32 240MHz, 320KB RAM, 4MB Flash
DEBUG: Current (cmsis-dap) External (cmsis-dap, esp-bin, esp-prog, iot-bus-jtag, jlink, minimodule, olimex-arm-usb-ocd, olimex-arm-usb-ocd-h, olimex-arm-usb-tiny-h, olimex-jtag-tiny, tumpa)
PACKAGES: 
 - framework-arduinoespressif32 @ 3.20017.0 (2.0.17) 
 - tool-esptoolpy @ 1.40501.0 (4.5.1) 
 - toolchain-xtensa-esp32 @ 8.4.0+2021r2-patch5
LDF: Library Dependency Finder -> https://bit.ly/configure-pio-ldf
LDF Modes: Finder ~ chain, Compatibility ~ soft
Found 35 compatible libraries
Scanning dependencies...
Dependency Graph
|-- ArduinoJson @ 7.1.0
|-- DHT sensor library @ 1.4.6
|-- Adafruit Unified Sensor @ 1.1.14
|-- WiFi @ 2.0.0
Building in release mode
Linking .pio/build/esp32dev/firmware.elf
Retrieving maximum program size .pio/build/esp32dev/firmware.elf
Checking size .pio/build/esp32dev/firmware.elf
Advanced Memory Usage is available via "PlatformIO Home > Project Inspect"
RAM:   [=         ]  14.2% (used 46612 bytes from 327680 bytes)
Flash: [=======   ]  71.8% (used 941249 bytes from 1310720 bytes)
Building .pio/build/esp32dev/firmware.bin
esptool.py v4.5.1
Creating esp32 image...
Merged 2 ELF sections
Successfully created esp32 image.
========================= [SUCCESS] Took 38.12 seconds =========================""")
    s.say("Cause: `ubuntu-latest` now resolves to Ubuntu 24.04, and actions/python-versions has no 3.7 build for it. I went with Python 3.12 rather than pinning the runner back to ubuntu-22.04: 3.7 has been end-of-life since mid-2023 and PlatformIO runs fine on 3.12 \u2014 the firmware builds locally with it (flash at 71.8%). I also moved setup-python to v5.")
    s.user("ok good. and while you're in there: every action gets pinned to a full commit sha with the version tag as a comment. that's our policy now after the tj-actions mess")
    s.bash("for a in actions/checkout@v4.2.0 actions/setup-python@v5.2.0 actions/cache@v4.1.0; do gh api repos/${a%@*}/commits/${a#*@} --jq .sha; done",
           "d632683dd7b4114ad314bca15554477dd762a938\nf677139bbe7f9c59b41e40162b753c062f5d49a3\n0c45773b623bea8c8e75f6c82b208c3cf94ea4f9")
    s.edit(".github/workflows/ci.yml", "      - uses: actions/checkout@v4\n", "      - uses: actions/checkout@d632683dd7b4114ad314bca15554477dd762a938 # v4.2.0\n")
    s.edit(".github/workflows/ci.yml", "        uses: actions/setup-python@v5\n", "        uses: actions/setup-python@f677139bbe7f9c59b41e40162b753c062f5d49a3 # v5.2.0\n")
    s.edit(".github/workflows/ci.yml", "      - uses: actions/cache@v4\n", "      - uses: actions/cache@0c45773b623bea8c8e75f6c82b208c3cf94ea4f9 # v4.1.0\n")
    s.bash("git commit -am 'ci: python 3.12 for ubuntu 24.04, pin actions by sha' && git push -u origin fix/ci-python && sleep 5 && gh run watch $(gh run list --branch fix/ci-python --limit 1 --json databaseId --jq '.[0].databaseId')",
           "[fix/ci-python 3c9e1f4] ci: python 3.12 for ubuntu 24.04, pin actions by sha\n 1 file changed, 5 insertions(+), 5 deletions(-)\nbranch 'fix/ci-python' set up to track 'origin/fix/ci-python'.\nRefreshing run status every 3 seconds. Press Ctrl+C to quit.\n\n\u2713 fix/ci-python CI \u00b7 11215009872\nTriggered via push about 2 minutes ago\n\nJOBS\n\u2713 firmware in 2m29s (ID 31188120553)\n  \u2713 Set up job\n  \u2713 Run actions/checkout@d632683dd7b4114ad314bca15554477dd762a938\n  \u2713 Set up Python\n  \u2713 Run actions/cache@0c45773b623bea8c8e75f6c82b208c3cf94ea4f9\n  \u2713 Install PlatformIO\n  \u2713 Build\n  \u2713 Post Run actions/cache@0c45773b623bea8c8e75f6c82b208c3cf94ea4f9\n  \u2713 Post Run actions/checkout@d632683dd7b4114ad314bca15554477dd762a938\n  \u2713 Complete job\n\n\u2713 Run CI (11215009872) completed with 'success'")
    s.say("Green on fix/ci-python. Once it's merged, the two open PRs just need a rebase.")
    s.keep("error", "not found for Ubuntu 24.04", id="e1")
    s.keep("fix", "ci.yml", fixes="e1")
    s.keep("decision", "Python 3.12 rather than pinning")
    s.keep("preference", "full commit sha")
    s.keep("fact", "espressif32 @ 6.8.1")
    return s


@session
def compose_redis_aof():
    s = Session("compose-redis-persistence", "/opt/stack/queue-worker", start="2025-08-19T11:20:00Z", version="1.0.98")
    s.user("hi, when we restart the compose stack the redis lose all the jobs in the queue. pls make it persistant. also the worker somtimes cant conect to redis after restart and crash, maybe same problem?")
    s.read("compose.yaml", "services:\n  redis:\n    image: redis:7.2.4-alpine\n    command: [\"redis-server\", \"--requirepass\", \"${REDIS_PASSWORD}\"]\n    ports:\n      - \"127.0.0.1:6379:6379\"\n\n  worker:\n    build: ./worker\n    environment:\n      REDIS_URL: redis://:${REDIS_PASSWORD}@redis:6379/0\n    depends_on:\n      - redis\n    restart: on-failure")
    s.bash("grep REDIS_PASSWORD .env", "REDIS_PASSWORD=q7Vd2LmX9rTz4KpB")
    s.bash("docker compose exec redis redis-cli -a q7Vd2LmX9rTz4KpB CONFIG GET appendonly && docker compose exec redis ls -la /data",
           "Warning: Using a password with '-a' or '-u' option on the command line interface may not be safe.\n1) \"appendonly\"\n2) \"no\"\ntotal 8\ndrwxr-xr-x    2 redis    redis         4096 Aug 19 09:02 .\ndrwxr-xr-x    1 root     root          4096 Aug 19 09:02 ..")
    s.say("Two separate problems, as it turns out.\n\n**Data loss:** /data lives only inside the container and there's no volume, so every time compose recreates the container (`down`/`up`, a new image, a config change) the queue is gone. Persistence options:\n- RDB snapshots only: cheap, but you can lose several minutes of jobs;\n- AOF with `appendfsync everysec`: at most about a second of writes lost, a bit more disk I/O.\n\nFor a job queue I'd take AOF.\n\n**Worker crash:** `depends_on` only waits for the redis container to *start*, not for Redis to accept connections. Let me confirm in the logs.")
    s.bash("docker compose logs worker --tail 8", "worker-1  | Traceback (most recent call last):\nworker-1  |   File \"/app/worker.py\", line 14, in <module>\nworker-1  |     conn.ping()\nworker-1  |   File \"/usr/local/lib/python3.12/site-packages/redis/connection.py\", line 358, in connect\nworker-1  |     raise ConnectionError(self._error_message(e))\nworker-1  | redis.exceptions.ConnectionError: Error 111 connecting to redis:6379. Connection refused.\nworker-1 exited with code 1")
    s.user("ok AOF everysec. and fix the worker thing how you think")
    s.edit("compose.yaml", "    image: redis:7.2.4-alpine\n    command: [\"redis-server\", \"--requirepass\", \"${REDIS_PASSWORD}\"]\n",
           "    image: redis:7.2.4-alpine\n    command: [\"redis-server\", \"--requirepass\", \"${REDIS_PASSWORD}\", \"--appendonly\", \"yes\", \"--appendfsync\", \"everysec\"]\n    environment:\n      REDIS_PASSWORD: ${REDIS_PASSWORD}\n    volumes:\n      - redis-data:/data\n    healthcheck:\n      test: [\"CMD-SHELL\", \"redis-cli -a \\\"$$REDIS_PASSWORD\\\" --no-auth-warning ping | grep -q PONG\"]\n      interval: 5s\n      timeout: 3s\n      retries: 10\n")
    s.edit("compose.yaml", "    depends_on:\n      - redis\n    restart: on-failure", "    depends_on:\n      redis:\n        condition: service_healthy\n    restart: on-failure\n\nvolumes:\n  redis-data:")
    s.bash("docker compose up -d", "[+] Running 3/3\n \u2714 Volume \"queue-worker_redis-data\"  Created                                   0.0s \n \u2714 Container queue-worker-redis-1   Healthy                                   6.1s \n \u2714 Container queue-worker-worker-1  Started                                   6.4s ")
    s.bash("docker compose exec redis sh -c 'redis-cli -a \"$REDIS_PASSWORD\" --no-auth-warning LLEN rq:queue:default' && docker compose down && docker compose up -d && docker compose exec redis sh -c 'redis-cli -a \"$REDIS_PASSWORD\" --no-auth-warning LLEN rq:queue:default'",
           "(integer) 1342\n[+] Running 3/3\n \u2714 Container queue-worker-worker-1  Removed                                   0.4s \n \u2714 Container queue-worker-redis-1   Removed                                   0.3s \n \u2714 Network queue-worker_default     Removed                                   0.2s \n[+] Running 3/3\n \u2714 Network queue-worker_default     Created                                   0.1s \n \u2714 Container queue-worker-redis-1   Healthy                                   5.9s \n \u2714 Container queue-worker-worker-1  Started                                   6.2s \n(integer) 1342")
    s.bash("docker compose logs worker --tail 3", "worker-1  | 11:41:07 Worker rq:worker:3f9c2b7e1d04 started with PID 1, version 1.16.2\nworker-1  | 11:41:07 Subscribing to channel rq:pubsub:3f9c2b7e1d04\nworker-1  | 11:41:07 *** Listening on default...")
    s.say("All 1342 queued jobs survived a full `down`/`up`, and the worker now waits for the Redis healthcheck before it starts, so no more connection-refused crash on boot.")
    s.user("work now, thank you!! last thing: in scripts/ we use always `docker compose` (v2), never the old docker-compose with the dash. restart.sh still use old one, pls fix")
    s.grep("docker-compose", "scripts", "scripts/restart.sh:4:docker-compose -f /opt/stack/queue-worker/compose.yaml restart worker")
    s.edit("scripts/restart.sh", "docker-compose -f /opt/stack/queue-worker/compose.yaml restart worker", "docker compose -f /opt/stack/queue-worker/compose.yaml restart worker")
    s.keep("decision", "AOF")
    s.keep("error", "Error 111 connecting to redis:6379", id="e1")
    s.keep("fix", "service_healthy", fixes="e1")
    s.keep("fact", "redis:7.2.4-alpine")
    s.keep("preference", "never the old docker-compose")
    s.never("q7Vd2LmX9rTz4KpB")
    return s


@session
def es_sku_keyword_reindex():
    s = Session("es-products-sku-keyword", "/home/sofia/ops/search-infra", start="2026-06-09T08:02:00Z", version="2.0.31")
    s.user("Morning! On the prod product-search cluster, `sku` in the products index is mapped as text, so exact SKU lookups return junk (searching AB-1002 also brings back AB-1003 and friends). We need it as keyword. Please do it through a reindex into a new versioned index plus an alias swap, no downtime. And write the steps into docs/runbooks/2026-06-sku-keyword.md as you go: every change we make on this cluster gets a runbook, no exceptions.")
    s.bash("kubectl -n search get secret products-es-elastic-user -o go-template='{{.data.elastic | base64decode}}'", "V3r9Qx2LmTp7Hs4K")
    s.bash("export ES_PASS=V3r9Qx2LmTp7Hs4K; curl -sS -u elastic:$ES_PASS https://localhost:9200", """{
  "name" : "products-es-default-0",
  "cluster_name" : "products",
  "cluster_uuid" : "m3Zb2qT9S1WcY7rK0aXn4g",
  "version" : {
    "number" : "8.13.4",
    "build_flavor" : "default",
    "build_type" : "docker",
    "build_hash" : "da95df118650b55a500dcc181889ac35c6d8da7c",
    "build_date" : "2024-05-06T22:04:45.107454559Z",
    "build_snapshot" : false,
    "lucene_version" : "9.10.0",
    "minimum_wire_compatibility_version" : "7.17.0",
    "minimum_index_compatibility_version" : "7.0.0"
  },
  "tagline" : "You Know, for Search"
}""")
    s.bash("curl -sS -u elastic:$ES_PASS 'https://localhost:9200/products/_mapping/field/sku?pretty'", "{\n  \"products-v3\" : {\n    \"mappings\" : {\n      \"sku\" : {\n        \"full_name\" : \"sku\",\n        \"mapping\" : {\n          \"sku\" : {\n            \"type\" : \"text\",\n            \"analyzer\" : \"standard\"\n          }\n        }\n      }\n    }\n  }\n}")
    s.say("`products` is an alias on products-v3. A field's type can't be changed in place \u2014 per the mapping docs, a PUT that tries it is rejected with `illegal_argument_exception: mapper [sku] cannot be changed from type [text] to [keyword]` \u2014 so the plan is: create products-v4, reindex into it, then move the alias atomically.\n\nFor the new mapping I'll give sku a lowercase normalizer, because the storefront uppercases what people type but the mobile app sends it as typed; that way AB-1002 and ab-1002 hit the same document.")
    s.bash("curl -sS -u elastic:$ES_PASS 'https://localhost:9200/products-v3/_mapping' | jq '.\"products-v3\".mappings' > mappings/products-v4.json && wc -l mappings/products-v4.json", "84 mappings/products-v4.json")
    s.edit("mappings/products-v4.json", "    \"sku\": {\n      \"type\": \"text\",\n      \"analyzer\": \"standard\"\n    },",
           "    \"sku\": {\n      \"type\": \"keyword\",\n      \"analyzer\": \"standard\",\n      \"normalizer\": \"sku_lower\"\n    },")
    s.write("mappings/products-v4.settings.json", "{\n  \"number_of_shards\": 3,\n  \"number_of_replicas\": 1,\n  \"analysis\": {\n    \"normalizer\": {\n      \"sku_lower\": { \"type\": \"custom\", \"filter\": [\"lowercase\"] }\n    }\n  }\n}")
    s.bash("jq -n --slurpfile m mappings/products-v4.json --slurpfile s mappings/products-v4.settings.json '{settings: $s[0], mappings: $m[0]}' | curl -sS --fail-with-body -u elastic:$ES_PASS -X PUT 'https://localhost:9200/products-v4' -H 'Content-Type: application/json' -d @-",
           "{\"error\":{\"root_cause\":[{\"type\":\"mapper_parsing_exception\",\"reason\":\"unknown parameter [analyzer] on mapper [sku] of type [keyword]\"}],\"type\":\"mapper_parsing_exception\",\"reason\":\"Failed to parse mapping: unknown parameter [analyzer] on mapper [sku] of type [keyword]\",\"caused_by\":{\"type\":\"mapper_parsing_exception\",\"reason\":\"unknown parameter [analyzer] on mapper [sku] of type [keyword]\"}},\"status\":400}curl: (22) The requested URL returned error: 400", 22)
    s.say("I carried the old `analyzer` over by mistake; keyword fields only take a normalizer. Nothing was created, so removing the line and retrying is safe.")
    s.edit("mappings/products-v4.json", "      \"type\": \"keyword\",\n      \"analyzer\": \"standard\",\n      \"normalizer\": \"sku_lower\"", "      \"type\": \"keyword\",\n      \"normalizer\": \"sku_lower\"")
    s.bash("jq -n --slurpfile m mappings/products-v4.json --slurpfile s mappings/products-v4.settings.json '{settings: $s[0], mappings: $m[0]}' | curl -sS --fail-with-body -u elastic:$ES_PASS -X PUT 'https://localhost:9200/products-v4' -H 'Content-Type: application/json' -d @-",
           "{\"acknowledged\":true,\"shards_acknowledged\":true,\"index\":\"products-v4\"}")
    s.say("Index created. One thing to settle before reindexing: the catalog-sync CronJob writes to the `products` alias every 5 minutes, and writes landing in v3 mid-reindex would be missing from v4. We can either suspend the CronJob for the duration, or let it run and follow up with a catch-up reindex of everything with `updated_at` after the start time.")
    s.user("suspend the cronjob, simpler. 20 minutes of a stale catalog is fine")
    s.bash("kubectl -n search patch cronjob catalog-sync -p '{\"spec\":{\"suspend\":true}}' && kubectl -n search get jobs -l app=catalog-sync --field-selector status.successful=0", "cronjob.batch/catalog-sync patched\nNo resources found in search namespace.")
    s.bash("curl -sS -u elastic:$ES_PASS -X POST 'https://localhost:9200/_reindex?wait_for_completion=false&slices=auto' -H 'Content-Type: application/json' -d '{\"source\":{\"index\":\"products-v3\"},\"dest\":{\"index\":\"products-v4\"}}'",
           "{\"task\":\"Xq3v8bJ1T6C9lO2r5mWkEw:1843207\"}")
    s.bash("sleep 600; curl -sS -u elastic:$ES_PASS 'https://localhost:9200/_tasks/Xq3v8bJ1T6C9lO2r5mWkEw:1843207' | jq '{completed, status: .task.status | {total, created, updated, failures: (.failures // [] | length)}}'",
           "{\n  \"completed\": true,\n  \"status\": {\n    \"total\": 1843221,\n    \"created\": 1843221,\n    \"updated\": 0,\n    \"failures\": 0\n  }\n}")
    s.bash("for i in products-v3 products-v4; do curl -sS -u elastic:$ES_PASS \"https://localhost:9200/$i/_count\"; echo; done",
           "{\"count\":1843221,\"_shards\":{\"total\":3,\"successful\":3,\"skipped\":0,\"failed\":0}}\n{\"count\":1843221,\"_shards\":{\"total\":3,\"successful\":3,\"skipped\":0,\"failed\":0}}")
    s.bash("curl -sS -u elastic:$ES_PASS -X POST 'https://localhost:9200/_aliases' -H 'Content-Type: application/json' -d '{\"actions\":[{\"remove\":{\"index\":\"products-v3\",\"alias\":\"products\"}},{\"add\":{\"index\":\"products-v4\",\"alias\":\"products\"}}]}' && kubectl -n search patch cronjob catalog-sync -p '{\"spec\":{\"suspend\":false}}'",
           "{\"acknowledged\":true,\"errors\":false}cronjob.batch/catalog-sync patched")
    s.bash("curl -sS -u elastic:$ES_PASS 'https://localhost:9200/products/_search?q=sku:ab-1002&filter_path=hits.total,hits.hits._index,hits.hits._source.sku'",
           "{\"hits\":{\"total\":{\"value\":1,\"relation\":\"eq\"},\"hits\":[{\"_index\":\"products-v4\",\"_source\":{\"sku\":\"AB-1002\"}}]}}")
    s.write("docs/runbooks/2026-06-sku-keyword.md", "# 2026-06-09 \u2014 products: sku text \u2192 keyword\n\nCluster: products (ECK, namespace `search`), Elasticsearch 8.13.4.\n\n1. Export the v3 mapping to `mappings/products-v4.json`; change `sku` to `keyword` with the `sku_lower` normalizer (settings in `mappings/products-v4.settings.json`).\n2. `PUT products-v4` with settings + mappings.\n3. Suspend the `catalog-sync` CronJob.\n4. `POST _reindex?wait_for_completion=false&slices=auto` v3 \u2192 v4; poll `_tasks/<id>` until `completed`.\n5. Compare `_count` on v3 and v4 (1,843,221 each).\n6. Atomic `_aliases` swap: remove `products` from v3, add to v4.\n7. Resume `catalog-sync`.\n\nRollback: swap the alias back to products-v3 (still in place, read-only from now on).\n")
    s.say("Done: `products` now points at products-v4, `sku:ab-1002` returns exactly AB-1002, catalog-sync is running again, and the runbook is at docs/runbooks/2026-06-sku-keyword.md. products-v3 is still there in case we need to swap back.")
    s.keep("preference", "gets a runbook")
    s.keep("fact", "8.13.4")
    s.keep("decision", "lowercase normalizer")
    s.keep("error", "unknown parameter [analyzer]", id="e1")
    s.keep("fix", "products-v4.json", fixes="e1")
    s.keep("decision", "suspend the cronjob")
    s.never("V3r9Qx2LmTp7Hs4K")
    return s


@session
def nvim_plugin_uv_compat():
    s = Session("nvim-quickmarks-uv-compat", "/home/maks/code/quickmarks.nvim", start="2025-07-28T16:40:00Z", version="1.0.98")
    s.user("tests pass on my machine but CI fails, something about uv being nil??")
    s.bash("gh run view --log-failed | tail -n 14", "test (v0.9.5)\tRun tests\t2025-07-28T14:02:11.0912345Z Starting...Scheduling: tests/quickmarks/jump_spec.lua\ntest (v0.9.5)\tRun tests\t2025-07-28T14:02:11.3456789Z \ntest (v0.9.5)\tRun tests\t2025-07-28T14:02:11.3458012Z ========================================\t\ntest (v0.9.5)\tRun tests\t2025-07-28T14:02:11.3458830Z Testing: \t/home/runner/work/quickmarks.nvim/quickmarks.nvim/tests/quickmarks/jump_spec.lua\t\ntest (v0.9.5)\tRun tests\t2025-07-28T14:02:11.3512201Z Success: \tquickmarks add stores the mark\t\ntest (v0.9.5)\tRun tests\t2025-07-28T14:02:11.3520904Z Fail\t||\tquickmarks jump restores cursor and persists\t\ntest (v0.9.5)\tRun tests\t2025-07-28T14:02:11.3521433Z \t\t\t...ckmarks.nvim/quickmarks.nvim/lua/quickmarks/store.lua:23: attempt to index field 'uv' (a nil value)\ntest (v0.9.5)\tRun tests\t2025-07-28T14:02:11.3521877Z \t\t\t\ntest (v0.9.5)\tRun tests\t2025-07-28T14:02:11.3522310Z \t\t\tstack traceback:\ntest (v0.9.5)\tRun tests\t2025-07-28T14:02:11.3522702Z \t\t\t\t...ckmarks.nvim/quickmarks.nvim/lua/quickmarks/store.lua:23: in function 'write'\ntest (v0.9.5)\tRun tests\t2025-07-28T14:02:11.3530001Z Success: \t1\t\ntest (v0.9.5)\tRun tests\t2025-07-28T14:02:11.3530223Z Failed : \t1\t\ntest (v0.9.5)\tRun tests\t2025-07-28T14:02:11.3530450Z Errors : \t0\t\ntest (v0.9.5)\tRun tests\t2025-07-28T14:02:11.3612000Z Tests Failed. Exit: 1")
    s.bash("nvim --version | head -n 3", "NVIM v0.10.1\nBuild type: Release\nLuaJIT 2.1.1720049189")
    s.read("lua/quickmarks/store.lua", "local M = {}\n\nlocal path = vim.fn.stdpath(\"data\") .. \"/quickmarks.json\"\n\nfunction M.read()\n  local fd = vim.uv.fs_open(path, \"r\", 438)\n  if not fd then\n    return {}\n  end\n  local stat = vim.uv.fs_fstat(fd)\n  local data = vim.uv.fs_read(fd, stat.size, 0)\n  vim.uv.fs_close(fd)\n  local ok, marks = pcall(vim.json.decode, data)\n  return ok and marks or {}\nend\n\nfunction M.write(marks)\n  local fd = assert(vim.uv.fs_open(path, \"w\", 420))\n  vim.uv.fs_write(fd, vim.json.encode(marks), 0)\n  vim.uv.fs_close(fd)\nend\n\nreturn M")
    s.say("`vim.uv` only exists from Neovim 0.10; on 0.9 the same libuv bindings are exposed as `vim.loop`. You're on v0.10.1 locally, and the CI matrix also runs v0.9.5, which is where it blows up. Options:\n\n1. Drop 0.9: raise the minimum in the README and take v0.9.5 out of the matrix.\n2. Shim it: `local uv = vim.uv or vim.loop` at the top of each module that uses it.")
    s.user("shim. we keep 0.9 working, debian stable people are stuck on it")
    s.edit("lua/quickmarks/store.lua", "local M = {}\n", "local M = {}\n\nlocal uv = vim.uv or vim.loop\n")
    s.bash("sed -i 's/vim\\.uv\\./uv./g' lua/quickmarks/store.lua && grep -rn 'vim\\.uv' lua/", "lua/quickmarks/store.lua:3:local uv = vim.uv or vim.loop\nlua/quickmarks/init.lua:57:  local timer = vim.uv.new_timer()")
    s.edit("lua/quickmarks/init.lua", "  local timer = vim.uv.new_timer()", "  local timer = (vim.uv or vim.loop).new_timer()")
    s.bash("for v in nvim ~/.local/share/bob/v0.9.5/bin/nvim; do $v --headless -c \"PlenaryBustedDirectory tests/ {minimal_init = 'tests/minimal_init.lua'}\" 2>&1 | grep -E '^(Success|Failed|Errors) *:'; done",
           "Success: \t4\t\nFailed : \t0\t\nErrors : \t0\t\nSuccess: \t4\t\nFailed : \t0\t\nErrors : \t0\t")
    s.bash("stylua --check lua/ tests/", "")
    s.say("All 4 specs pass on both 0.10.1 and 0.9.5, and stylua is clean.")
    s.user("thx. btw no global functions in this plugin, ever. everything hangs off the module table. there's a `function QuickmarksDebug()` in init.lua from an old PR, move it to M.debug")
    s.grep("^function [A-Z]", "lua", "lua/quickmarks/init.lua:88:function QuickmarksDebug()")
    s.edit("lua/quickmarks/init.lua", "function QuickmarksDebug()", "function M.debug()")
    s.grep("QuickmarksDebug", ".", "plugin/quickmarks.lua:9:vim.api.nvim_create_user_command(\"QuickmarksDebug\", function() QuickmarksDebug() end, {})")
    s.edit("plugin/quickmarks.lua", "vim.api.nvim_create_user_command(\"QuickmarksDebug\", function() QuickmarksDebug() end, {})", "vim.api.nvim_create_user_command(\"QuickmarksDebug\", function() require(\"quickmarks\").debug() end, {})")
    s.bash("nvim --headless -c \"PlenaryBustedDirectory tests/ {minimal_init = 'tests/minimal_init.lua'}\" 2>&1 | grep -E '^(Success|Failed|Errors) *:' && stylua --check lua/ tests/ plugin/", "Success: \t4\t\nFailed : \t0\t\nErrors : \t0\t")
    s.say("QuickmarksDebug is now `M.debug`, and the `:QuickmarksDebug` user command calls it through `require(\"quickmarks\")`. Tests still pass.")
    s.keep("error", "attempt to index field 'uv'", id="e1")
    s.keep("fix", "vim.uv or vim.loop", fixes="e1")
    s.keep("fact", "NVIM v0.10.1")
    s.keep("decision", "keep 0.9 working")
    s.keep("preference", "no global functions")
    return s
