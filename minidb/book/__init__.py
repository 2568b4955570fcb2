"""The book's helpers: what the chapters of the Jupyter Book use beside the engines and the experiments.

* ``charts``: Altair charts in the book's look, published beside reproduced, rendered offline.
"""
