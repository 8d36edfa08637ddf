"""ERA5 2 m temperature: sources, synthetic field, station-sample builder (``scinum build era5``)."""
