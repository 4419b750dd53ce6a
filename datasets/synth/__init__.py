"""Synthetic American mahjong tables: tile faces per set style, scenes, an overhead camera, exact labels.

A developer and training tool (it needs Pillow and the Noto fonts); the product at run time only needs the ONNX
models in ``models/``. Entry points: ``faces.face_image``, ``scene.render``, ``layout.random_scene``, and the
``python -m datasets.synth.generate`` command.
"""
