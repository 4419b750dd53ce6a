"""The ``mahj`` command line and the pipeline that wires camera, referee, board, speech and display."""
