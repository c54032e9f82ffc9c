# SPDX-License-Identifier: GPL-2.0-only
#
# fio-bench.sh's plot: median throughput of each job against bypass's, per
# configuration.  gnuplot -e "dat='FILE'; png='FILE'" fio-plot.gp
set terminal pngcairo size 1000,500 noenhanced
set output png
set title "fio on QEMU's NVMe behind its SMMUv3 (TCG): median throughput, % of bypass"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key outside right top
set yrange [0:*]
set ylabel "% of bypass"
set grid ytics
set datafile missing "NaN"
n = system("head -n 1 '".dat."' | wc -w") + 0
plot for [i=2:n] dat using i:xtic(1) title columnheader(i)
