"""cardcam: reads hole cards (and the board) from camera frames.

Entry points::

    from cardcam.recognize import recognize, Read
    read = recognize(frame_bgr, n_cards=2)   # Read(shown, faces, cards, confidence)

    from cardcam.tracker import TableTracker   # K-of-N per seat, lights, duplicates
    from cardcam.calibrate import calibrate    # deck profile from 52 images
    from cardcam.synth import hand_frame       # synthetic frames with ground truth

``cardcam.tracker`` is pure Python (no OpenCV).  See docs/CARDCAM.md.
"""

import broadcast  # noqa: F401 - its import sets one OpenBLAS thread per process before numpy loads (a fork deadlock)
