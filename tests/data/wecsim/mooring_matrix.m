%% Simulation Data
simu = simulationClass();
simu.simMechanicsFile = 'mooring.slx';
simu.rampTime = 50;
simu.endTime = 200;
simu.dt = 0.05;

%% Wave Information
waves = waveClass('irregular');
waves.height = 2;
waves.period = 10;
waves.spectrumType = 'PM';
waves.direction = 0;

%% Body Data
body(1) = bodyClass('hydroData/sphere.h5');
body(1).mass = 'equilibrium';
body(1).inertia = [2.0e6 2.0e6 2.0e6];
body(1).linearDamping = diag([1e4 1e4 0 0 0 0]);

%% Mooring
mooring(1) = mooringClass('mooring');
K = zeros(6);
K(1,1) = 5e4; K(2,2) = 5e4; K(6,6) = 1e6;
mooring(1).matrix.stiffness = K;
mooring(1).matrix.damping = zeros(6,6);
mooring(1).matrix.preTension = [0 0 0 0 0 0];
mooring(1).location = [0 0 -2];
cable(1) = cableClass('cable', 'baseConstraint', 'followerConstraint');
