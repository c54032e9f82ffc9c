# SPDX-License-Identifier: GPL-2.0-only
#
# A kernel log with the warnings a test made on purpose taken out: a test
# that has the kernel's own code warn (io-pgtable-arm warns at an unmap
# that meets an unmapped page) brackets it with "fp-expect-warn: begin
# FUNCTION" and "fp-expect-warn: end".  The warnings between them raised
# in FUNCTION are left out, each from its "cut here" line to its "end
# trace" line; any other warning stays, and a bracket in which FUNCTION
# did not warn leaves a line "FP-EXPECT-WARN-UNSEEN FUNCTION" for the
# caller to fail on.  Lines may carry printk's timestamp and a console's
# carriage return.
#
#   awk -f scripts/expect-warn.awk LOG
{ sub(/\r$/, "") }
/fp-expect-warn: begin / { fn = $NF; win = 1; seen = 0; print; next }
/fp-expect-warn: end/ { if (!seen) print "FP-EXPECT-WARN-UNSEEN " fn
			win = 0; print; next }
win && /-+\[ cut here \]-+/ { cut = $0; next }
cut != "" { if ($0 ~ ("(^|\\] )WARNING: .* " fn "\\+")) { drop = 1; seen++ }
	    else print cut
	    cut = "" }
drop { if (/---\[ end trace/) drop = 0; next }
{ print }
