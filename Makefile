# SPDX-License-Identifier: GPL-2.0-only
#
# Standalone build: make [KDIR=/path/to/kernel/build].  Inside Kbuild and
# under DKMS the kernel reads Kbuild directly.

KDIR ?= /lib/modules/$(shell uname -r)/build

.PHONY: all modules clean check

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean

# The README's test command: everything CI runs.
check:
	scripts/check.sh
