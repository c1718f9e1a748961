"""`perflab serve`: the history as a web dashboard (app.py), its queries (queries.py), templates and
static files (the Chart.js library perflab ships, refreshed by scripts/refresh-chartjs.sh)."""
