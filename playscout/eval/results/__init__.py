"""Results: reading finished (and running) runs. Reports and plots, the run catalog the API and
the run browser list, the comparison of two runs, the verdicts each answer got, and how far a
run got towards the gold evidence."""
