"""The worker's zeroed allocations: memory a compiled exact case never writes reads as zero."""

import unittest

import torch
from inductor_fuzz_worker.allocations import zeroed_allocations


class ZeroedAllocationsTest(unittest.TestCase):
    def test_a_freed_tensors_values_do_not_come_back(self):
        with zeroed_allocations():
            for _ in range(3):
                ones = torch.ones(512, dtype=torch.bool)
                del ones
                fresh = torch.empty(512, dtype=torch.bool)
                self.assertEqual(int(fresh.view(torch.uint8).max()), 0)
                del fresh


if __name__ == "__main__":
    unittest.main()
