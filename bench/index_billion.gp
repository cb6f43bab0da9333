# gnuplot -e "datafile='index_billion.dat'; outfile='index_billion.png'" bench/index_billion.gp
# bench/index_billion.sh's own results across the fill: the load rate of
# each step (keys a second, left axis) and the false-positive rate
# measured after it (right axis), for the bloomfilter index and for
# RedisBloom.  Columns of the data file: keys held (millions), index load
# rate, index measured rate, RedisBloom load rate, RedisBloom measured
# rate (rates in keys/s and %; "NaN" where a side did not run).
if (!exists("datafile")) datafile = 'index_billion.dat'
if (!exists("outfile")) outfile = 'index_billion.png'
if (!exists("target")) target = 1.0
if (!exists("keys")) keys = "1e9"
set terminal pngcairo size 1000,650 font ",11" noenhanced
set output outfile
set title "Loading " . keys . " distinct keys into one filter of capacity " . keys . " at 1%: load rate and measured false-positive rate across the fill"
set xlabel "keys held (millions)"
set ylabel "load rate of the step (million keys/s)"
set y2label "false-positive rate measured after the step (%)"
set xrange [0:*]
set yrange [0:*]
set y2range [0:target * 1.2]
set ytics nomirror
set y2tics
set grid
set key top left
plot datafile using 1:($2 / 1e6) with linespoints lw 2 pt 7 lc rgb "#1f77b4" title "bloomfilter index: load rate", \
	datafile using 1:($4 / 1e6) with linespoints lw 2 pt 5 lc rgb "#d62728" title "RedisBloom: load rate", \
	datafile using 1:3 axes x1y2 with linespoints lw 2 dt 2 pt 6 lc rgb "#1f77b4" title "bloomfilter index: measured rate", \
	datafile using 1:5 axes x1y2 with linespoints lw 2 dt 2 pt 4 lc rgb "#d62728" title "RedisBloom: measured rate", \
	target axes x1y2 with lines lw 2 dt 3 lc rgb "#555555" title "target rate"
