# Recall@10 against single-thread QPS (log scale) for one dataset and one
# selectivity, from the plot data vector_benchmark writes (report.h): one
# panel per correlation (uncorrelated, correlated, anti-correlated), or one
# panel for 100 % (no filter); one line per system, swept over ef.
#
#   gnuplot -e "datadir='build/bench/vector-results/plot'; dataset='sift5k'; sel='10'; \
#               out='bench/vector/plots/sift5k-sel10.png'" bench/vector/plot.gp
# (run.sh does this for every dataset and selectivity it ran.)

# One colour and point type per system, as report.cc numbers them (column 4).
set linetype 1 lc rgb "#000000" pt 9 ps 2.2 lw 2   # engram planner (default ef)
set linetype 2 lc rgb "#d62728" pt 7 ps 1.0 lw 2   # engram planner
set linetype 3 lc rgb "#ff9896" pt 6 ps 0.8 lw 1   # engram graph (forced)
set linetype 4 lc rgb "#9467bd" pt 4 ps 0.8 lw 1   # engram graph_two_hop (forced)
set linetype 5 lc rgb "#8c564b" pt 5 ps 1.4 lw 1   # engram exact (forced)
set linetype 6 lc rgb "#1f77b4" pt 7 ps 1.0 lw 2   # FAISS HNSW + IDSelector
set linetype 7 lc rgb "#17becf" pt 13 ps 1.6 lw 1  # FAISS scan of the allowed ids
set linetype 8 lc rgb "#2ca02c" pt 7 ps 1.0 lw 2   # hnswlib (unfiltered)
set linetype 9 lc rgb "#7f7f7f" pt 1 ps 1.0 lw 1

if (!exists("datadir") || !exists("dataset") || !exists("sel") || !exists("out")) {
  print "plot.gp: set datadir, dataset, sel and out with -e"
  exit status 1
}

single = (sel eq "100")
set terminal pngcairo size (single ? 700 : 1800), 520 font "sans,10" noenhanced
set output out
set logscale y
set format y "%.0s%c"
set grid xtics ytics mytics
set xrange [*:1.01]
set xlabel "recall@10 (exact filtered top-10)"
set ylabel "queries / s, one thread (log)"
set key left bottom box opaque font ",9"
set arrow 1 from 0.95, graph 0 to 0.95, graph 1 nohead dt 2 lc rgb "#888888"

# Point type per style (pt variable takes it from the data: column 4 mapped).
pts = "9 7 6 4 5 7 13 7 1"
ptof(s) = int(word(pts, int(s)))
file(c) = sprintf("%s/%s-sel%s-%s.dat", datadir, dataset, sel, c)
panel(c, t) = sprintf("%s, %s %% kept, %s", dataset, sel, t)

if (single) {
  set title panel("none", "no filter")
  plot for [i=0:*] file("none") index i using 1:2:(ptof($4)):4 with linespoints pt variable lc variable title columnheader(1)
} else {
  set multiplot layout 1, 3
  set title panel("uncorrelated", "uncorrelated")
  plot for [i=0:*] file("uncorrelated") index i using 1:2:(ptof($4)):4 with linespoints pt variable lc variable title columnheader(1)
  set title panel("correlated", "correlated with the query")
  plot for [i=0:*] file("correlated") index i using 1:2:(ptof($4)):4 with linespoints pt variable lc variable title columnheader(1)
  set title panel("anti", "anti-correlated with the query")
  plot for [i=0:*] file("anti") index i using 1:2:(ptof($4)):4 with linespoints pt variable lc variable title columnheader(1)
  unset multiplot
}
