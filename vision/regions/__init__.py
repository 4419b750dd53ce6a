"""The table's regions, one module per kind, each turning a region's committed changes into moves by its own
rules: ``floor`` (discards), ``wall`` (picks), ``slope`` (racks, and standing-tile counts against the referee's),
``rack_top`` (exposures, joker exchanges, a hand shown). ``state`` holds what they share (each region's reading
state, the calibration, the pictures they compare) and ``turns`` whose turn it is and what each seat did last."""
