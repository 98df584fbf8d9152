// Writes the graph of the composed grid_sample's forward (grid_sample_ref.h,
// the MLX documentation's version) with export_to_dot, on small shapes:
//   graph_export FILE.dot     (scripts/diagrams.sh draws it into a PNG)
// and lists it with print_graph on stdout.
#include <fstream>
#include <iostream>

#include "examples/grid_sample_ref.h"
#include "mlx_lite/mlx_lite.h"

using namespace mlx_lite;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: graph_export FILE.dot\n";
    return 2;
  }
  array x = random::normal({1, 4, 4, 2}, random::key(0));
  array grid = random::uniform(-1.0f, 1.0f, {1, 3, 3, 2}, float32, random::key(1));
  eval(x, grid);  // the graph's inputs, not its random ops
  NodeNamer namer;
  namer.set_name(x, "x");
  namer.set_name(grid, "grid");
  array out = examples::grid_sample_ref(x, grid);
  namer.set_name(out, "out");
  std::ofstream file(argv[1]);
  export_to_dot(file, namer, out);
  print_graph(std::cout, namer, out);
  return file ? 0 : 1;
}
