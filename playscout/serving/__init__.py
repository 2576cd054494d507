"""HTTP serving: the FastAPI app (`serving.app.create_app`), the trajectory viewer, and vLLM
launch profiles (`serving.profiles`). Kept free of imports so that loading a profile does not
import FastAPI."""
