"""Views: pictures of results and analyses, for people.

* :mod:`.plots`, :mod:`.linear_plots`: ``frylinks plot`` figures of results, sweeps,
  RAOs and mode shapes;
* :mod:`.scene`: the world poses of everything a results file holds, at chosen times;
* :mod:`.animate`, :mod:`.vtk`, :mod:`.reading`: animations, ParaView files, and the
  opening of a results file for them.

Views read results files and the analyses' Datasets; they stand on I/O and analysis,
and nothing below imports them. The modules are imported by name (matplotlib loads
only when a picture is drawn).
"""
