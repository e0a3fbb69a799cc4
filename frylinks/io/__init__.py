"""I/O: what reads a model from files and writes its results, and the runs that do both.

* :mod:`.case`, :mod:`.yaml_reading`, :mod:`.schema`: YAML case files into a
  :class:`~frylinks.System`, and their JSON Schema;
* :mod:`.loadcases`, :mod:`.sweeps`, :mod:`.sweepfile`: load cases of a case file run on
  dask.distributed into one Dataset with a ``case`` dimension;
* :mod:`.runner`: a run (assemble, integrate, sample, stream to netCDF, keep the status
  whatever happens) and :class:`~frylinks.io.runner.System`, the model that runs;
* :mod:`.results`: the one table of result variables and the Dataset of a run;
* :mod:`.netcdf`, :mod:`.info`: results streamed to netCDF, and read back.

It stands on the engine and the model; nothing here is imported by them. The modules
are imported by name (this package re-exports nothing, so reading a case does not load
dask).
"""
