// Prints a greeting for the name given on the command line.
function greet(name) {
  return 'Hello, ' + name + '!';
}

if (require.main === module) {
  console.log(greet(process.argv[2] || 'world'));
}

module.exports = { greet };
