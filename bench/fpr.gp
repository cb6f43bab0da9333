# gnuplot -e "datafile='fpr.dat'; outfile='fpr.png'" bench/fpr.gp
# Measured false-positive rate (points) vs the model the core sizes with
# (lines) by bits per element; one data set per type/layout in fpr.dat.
if (!exists("datafile")) datafile = 'fpr.dat'
if (!exists("outfile")) outfile = 'fpr.png'
stats datafile using 3 nooutput
nsets = STATS_blocks
set terminal pngcairo size 1000,700 font ",11" noenhanced
set output outfile
set title "measured (points) vs theoretical (lines) false-positive rate, filters filled to capacity"
set xlabel "bits per element (filter bits / elements added; counting: 4 bits per counter)"
set xrange [0:80]
set yrange [3e-5:1]
set ylabel "false-positive rate"
set logscale y
set format y "%.0e"
set grid
set key top right
plot 0.6185**x with lines dt 2 lc rgb "gray" title "optimal standard Bloom: 0.6185^bits", \
	for [i=0:nsets-1] datafile index i using 3:6 with lines lw 2 lc i+1 \
		title columnhead(1) . " model", \
	for [i=0:nsets-1] datafile index i using 3:5 with points pt 7 ps 1.3 lc i+1 \
		title columnhead(1) . " measured"
